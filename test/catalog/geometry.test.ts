import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { type DeviceGeometry, loadDevices } from '../../src/modules/catalog/devices.ts';
import { LAYER_PX_PER_MM, caseOutline, printSpecFor } from '../../src/modules/catalog/geometry.ts';
import { forwardOnly, stageOn } from '../../src/modules/catalog/lifecycle.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

const device = (key: string) => loadDevices().find((d) => d.key === key)!;
/** A device of our own, so these tests do not depend on the committed table. */
const testPhone = (over: Partial<DeviceGeometry> = {}): DeviceGeometry => ({
  key: 'test-phone',
  brand: 'Testco',
  model: 'Test Phone',
  releaseDate: '2026-01-15',
  flagship: true,
  body: { widthMm: 70, heightMm: 150, depthMm: 8, cornerRadiusMm: 10 },
  camera: {
    shape: 'rounded-rect',
    xMm: 6,
    yMm: 6,
    widthMm: 30,
    heightMm: 30,
    cornerRadiusMm: 8,
    lenses: [{ xMm: 8, yMm: 8, diameterMm: 12 }],
  },
  cutouts: [{ side: 'bottom', kind: 'port', offsetMm: 29, lengthMm: 12 }],
  colors: [{ name: 'Black', hex: '#111111' }],
  ...over,
});
const alpha = async (png: Buffer, xMm: number, yMm: number) => {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const x = Math.round(xMm * LAYER_PX_PER_MM);
  const y = Math.round(yMm * LAYER_PX_PER_MM);
  return data[(y * info.width + x) * info.channels + 3];
};

describe('catalog: geometry, lifecycle and device import', () => {
  it('derives the print area from the body and the case wall, in mm and in px at the DPI', () => {
    const ip15 = device('iphone-15');
    const clear = printSpecFor(ip15, CASE_TYPES.clear);
    // The shell is 74 x 150 mm; a clear one is printed on its flat back, inside a 3.2 mm clear rim.
    assert.deepEqual(clear, { widthMm: 67.6, heightMm: 143.6, widthPx: 1597, heightPx: 3392, dpi: 600 });
    assert.deepEqual(
      [caseOutline(ip15, CASE_TYPES.clear).widthMm, caseOutline(ip15, CASE_TYPES.clear).heightMm],
      [74, 150],
    );
    const leather = printSpecFor(ip15, CASE_TYPES.leather);
    assert.equal(leather.dpi, 300);
    assert.equal(leather.widthPx, Math.round((leather.widthMm / 25.4) * 300));
    assert.ok(printSpecFor(ip15, CASE_TYPES.tough).widthMm > clear.widthMm, 'a tough case is thicker');
    const o = caseOutline(ip15, CASE_TYPES.clear);
    assert.ok(o.hole.xMm > 0 && o.hole.xMm + o.hole.widthMm < o.widthMm);
  });

  it('moves through the stages with the catalog date, only forward', () => {
    const at = (d: string) => stageOn('2025-06-01', new Date(`${d}T00:00:00Z`));
    assert.equal(at('2025-01-01'), 'announced');
    assert.equal(at('2025-04-01'), 'prelaunched');
    assert.equal(at('2025-06-01'), 'launched');
    assert.equal(at('2028-11-30'), 'launched');
    assert.equal(at('2029-01-01'), 'sunsetted');
    assert.equal(at('2030-01-01'), 'ended');
    assert.equal(at('2032-01-01'), 'archived');
    assert.equal(forwardOnly('ended', 'launched'), 'ended');
    assert.equal(forwardOnly('launched', 'ended'), 'ended');
    assert.equal(forwardOnly(undefined, 'announced'), 'announced');
  });

  describe('through the import', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp();
    });
    after(() => t.close());
    const count = async (table: string) =>
      Number((await t.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0].n);
    const file = (devices: unknown[], products: unknown[] = [], extra: Record<string, unknown> = {}) => ({
      catalogDate: '2026-02-01',
      devices,
      productgroups: [{ code: 'test-tough', name: 'Test tough cases', price: 1999, caseType: 'tough' }],
      items: [{ sku: 'CASE-TEST-TGH', logicalQuantity: 5 }],
      products,
      ...extra,
    });
    const caseOf = {
      name: 'Test Phone Tough Case',
      productgroup: 'test-tough',
      item: 'CASE-TEST-TGH',
      device: 'test-phone',
      printable: true,
    };

    it('gives a product with a device its stage, print area and layers that follow the outline', async () => {
      const res = await operator(t, 'POST', '/catalog/import', file([testPhone()], [caseOf]));
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.data.summary.devices, { created: 1, updated: 0, unchanged: 0 });
      const ref = res.data.references.products[0].reference;
      assert.equal(res.data.references.products[0].status, 'launched', 'released 2026-01-15, catalog date 2026-02-01');
      const p = (await call(t, 'GET', `/v2/products/${ref}`)).data.product;
      assert.deepEqual(
        { ...p.print, modified: undefined },
        { modified: undefined, widthMm: 74.8, heightMm: 154.8, widthPx: 1767, heightPx: 3657, dpi: 600 },
      );
      assert.deepEqual(
        p.layers.images.map((l: any) => l.name),
        ['print-area', 'cutline'],
      );
      const area = (await call(t, 'GET', new URL(p.layers.images[0].url).pathname)).rawPayload;
      const meta = await sharp(area).metadata();
      assert.equal(meta.width, Math.round(74.8 * LAYER_PX_PER_MM));
      const wall = CASE_TYPES.tough.wallMm;
      assert.equal(await alpha(area, 37.4, 77.4), 255, 'the middle of the back is printed');
      assert.equal(await alpha(area, wall + 6 + 15, wall + 6 + 15), 0, 'the camera hole is not');
      assert.equal(await alpha(area, 0.3, 0.3), 0, 'nor the rounded corner');
      const line = (await call(t, 'GET', new URL(p.layers.images[1].url).pathname)).rawPayload;
      assert.ok((await alpha(line, wall + 6 - 0.8, wall + 20)) > 0, 'the cut line runs round the camera hole');
      assert.equal(await alpha(line, 37.4, 77.4), 0);

      const shapes = await t.s.catalog.productShapes([ref, 'Product_nope']);
      assert.deepEqual([...shapes.keys()], [ref]);
      assert.equal(shapes.get(ref)!.device!.camera.widthMm, 30);
      assert.equal(shapes.get(ref)!.caseType!.material.finish, 'matte');

      const again = await operator(t, 'POST', '/catalog/import', file([testPhone()], [caseOf]));
      assert.deepEqual(again.data.summary.devices, { created: 0, updated: 0, unchanged: 1 });
      assert.deepEqual(again.data.summary.products, { created: 0, updated: 0, unchanged: 1 });
      const earlier = await operator(
        t,
        'POST',
        '/catalog/import',
        file([testPhone()], [caseOf], { catalogDate: '2025-01-01' }),
      );
      assert.equal(
        earlier.data.references.products[0].status,
        'launched',
        'an earlier catalog date never moves a stage back',
      );
      const later = await operator(
        t,
        'POST',
        '/catalog/import',
        file([testPhone()], [caseOf], { catalogDate: '2030-01-01' }),
      );
      assert.equal(later.data.references.products[0].status, 'sunsetted');

      const moved = testPhone({ camera: { ...testPhone().camera, xMm: 10 } });
      const updated = await operator(
        t,
        'POST',
        '/catalog/import',
        file([moved], [caseOf], { catalogDate: '2030-01-01' }),
      );
      assert.deepEqual(updated.data.summary.devices, { created: 0, updated: 1, unchanged: 0 });
      assert.deepEqual(updated.data.summary.products, { created: 0, updated: 1, unchanged: 0 }, 'new layers');
    });

    it('refuses bad rows naming the row and the field, and applies nothing', async () => {
      const devices = await count('devices');
      const products = await count('products');
      const groups = await count('productgroups');
      const good = testPhone({ key: 'good-phone' });
      const noWidth: any = testPhone({ key: 'no-width' });
      delete noWidth.body.widthMm;
      const cases: Array<[unknown, RegExp]> = [
        [file([good, noWidth]), /^body\.devices\[1\]\.body\.widthMm is required/],
        [
          file([good, testPhone({ key: 'wide-island', camera: { ...testPhone().camera, xMm: 50 } })]),
          /^body\.devices\[1\]\.camera\.xMm puts the camera island outside the body/,
        ],
        [file([good, testPhone({ key: 'good-phone' })]), /^body\.devices\[1\]\.key good-phone appears twice/],
        [
          file([good], [{ ...caseOf, device: 'good-phone', productgroup: 'nope' }]),
          /^body\.products\[0\]\.productgroup nope/,
        ],
        [
          file([good], [{ ...caseOf, device: 'nope-phone' }]),
          /^body\.products\[0\]\.device nope-phone is not in the device table/,
        ],
        [
          file([good], [{ ...caseOf, device: undefined, name: 'No status' }]),
          /^body\.products\[0\]\.status is required for a product without a device/,
        ],
        [file([good], [{ ...caseOf, device: 'good-phone', item: 'NOPE-SKU' }]), /^body\.products\[0\]\.item NOPE-SKU/],
        [{ ...file([good]), catalogDate: '2026-13-01' }, /^body\.catalogDate/],
      ];
      for (const [doc, message] of cases) {
        const res = await operator(t, 'POST', '/catalog/import', doc);
        assert.equal(res.statusCode, 400, res.body);
        assert.match(res.data.message, message);
      }
      assert.equal(await count('devices'), devices, 'no device of a refused file is stored');
      assert.equal(await count('products'), products);
      assert.equal(await count('productgroups'), groups);
      assert.equal(
        (await t.s.catalog.devices()).some((d) => d.key === 'good-phone'),
        false,
      );
    });

    it('advances stages to a catalog date, forward only, giving print and layers on leaving announced', async () => {
      const future = testPhone({
        key: 'future-phone',
        model: 'Future Phone',
        releaseDate: '2027-06-01',
        preliminary: true,
      });
      const doc = {
        catalogDate: '2026-12-01',
        devices: [future],
        productgroups: [{ code: 'test-clear', name: 'Test clear cases', price: 999, caseType: 'clear' }],
        items: [{ sku: 'CASE-FUTURE-CLR', logicalQuantity: 0 }],
        products: [
          {
            name: 'Future Phone Clear Case',
            productgroup: 'test-clear',
            item: 'CASE-FUTURE-CLR',
            device: 'future-phone',
            printable: true,
          },
        ],
      };
      const res = await operator(t, 'POST', '/catalog/import', doc);
      assert.equal(res.statusCode, 200, res.body);
      const ref = res.data.references.products[0].reference;
      let p = (await operator(t, 'GET', `/catalog/products/${ref}`)).data.product;
      assert.equal(p.status, 'announced');
      assert.equal(p.device, 'future-phone', 'operators see the device');
      assert.equal(p.caseType, 'clear');
      assert.equal(p.print, null, 'a preliminary device gives no print spec while announced');
      assert.deepEqual(p.layers.images, []);

      const jobs = async () =>
        (
          await t.db.query<{ payload: any }>(
            "SELECT payload FROM jobs WHERE kind = 'catalog.product_changed' ORDER BY id",
          )
        ).map((j) => j.payload);
      const before = (await jobs()).length;
      const early = await operator(t, 'POST', '/catalog/lifecycle', { catalogDate: '2027-01-01' });
      assert.equal(early.statusCode, 200, early.body);
      assert.ok(!early.data.moved.some((m: any) => m.reference === ref), 'still announced on 2027-01-01');
      const moved = await operator(t, 'POST', '/catalog/lifecycle', { catalogDate: '2027-04-01' });
      assert.deepEqual(
        moved.data.moved.filter((m: any) => m.reference === ref),
        [{ reference: ref, name: 'Future Phone Clear Case', from: 'announced', to: 'prelaunched' }],
      );
      p = (await operator(t, 'GET', `/catalog/products/${ref}`)).data.product;
      assert.equal(p.status, 'prelaunched');
      // The shell is 72.4 mm wide; the clear case prints inside its 3.2 mm rim.
      assert.equal(p.print.widthMm, 66);
      assert.deepEqual(
        p.layers.images.map((l: any) => l.name),
        ['print-area', 'cutline'],
      );
      const events = (await jobs()).slice(before).filter((j) => j.productReference === ref);
      assert.deepEqual(
        events.map((j) => j.status),
        [{ from: 'announced', to: 'prelaunched' }],
      );

      const back = await operator(t, 'POST', '/catalog/lifecycle', { catalogDate: '2026-01-01' });
      assert.deepEqual(back.data.moved, [], 'an earlier date moves nothing back');
      assert.equal((await operator(t, 'POST', '/catalog/lifecycle', { catalogDate: '2027-13-01' })).statusCode, 400);
      assert.equal((await operator(t, 'POST', '/catalog/lifecycle', { when: 'now' })).statusCode, 400);
    });

    it('seeds every device in every case type, with accessories, stock and shared items', async () => {
      const summaries = t.seed.organizations[0].products!;
      assert.ok(summaries.length >= 400, `${summaries.length} products`);
      const stored = await t.s.catalog.devices();
      assert.ok(stored.length >= loadDevices().length);
      for (const type of Object.values(CASE_TYPES))
        assert.ok(
          summaries.some((p) => p.name === `iPhone 16 Pro ${type.label}`),
          type.label,
        );
      for (const name of [
        '20W USB-C Charger',
        'Crossbody Phone Strap Black',
        'Pixel 10 Tempered Glass Screen Protector',
      ])
        assert.ok(
          summaries.some((p) => p.name === name && !p.printable),
          name,
        );
      const protector = summaries.find((p) => p.name === 'iPhone 14 Tempered Glass Screen Protector')!;
      const shapes = await t.s.catalog.productShapes([protector.reference]);
      assert.equal(shapes.get(protector.reference)!.caseType, null);
      const item = await t.db.query<{ sku: string; n: string }>(
        `SELECT i.sku, count(*) AS n FROM products p JOIN items i ON i.id = p.item_id
          WHERE p.name IN ('Galaxy S26 Tempered Glass Screen Protector', 'Galaxy S27 Tempered Glass Screen Protector') GROUP BY i.sku`,
      );
      assert.deepEqual(
        item.map((r) => [r.sku, Number(r.n)]),
        [['PROT-S26-GLS', 2]],
        'one protector fits both',
      );
      const all = await t.db.query<{ legacy_item_sku: string; sku: string; created_at: Date }>(
        'SELECT p.legacy_item_sku, i.sku, p.created_at FROM products p JOIN items i ON i.id = p.item_id',
      );
      for (const r of all) {
        if (r.created_at < new Date('2026-03-22T00:00:00Z')) assert.equal(r.legacy_item_sku, r.sku);
        else assert.match(r.legacy_item_sku, new RegExp(`^${r.sku.replace(/[.]/g, '\\.')}P\\d{3}$`));
      }
      assert.ok(all.filter((r) => r.created_at >= new Date('2026-03-22T00:00:00Z')).length >= 20);
      const legacy = await t.db.query<{ name: string; legacy_item_sku: string }>(
        `SELECT name, legacy_item_sku FROM products WHERE name IN ('Pixel 11 Tempered Glass Screen Protector', 'Pixel 11 Pro Tempered Glass Screen Protector', 'iPhone 17 Pro Clear Case') ORDER BY name`,
      );
      assert.deepEqual(
        legacy.map((r) => r.legacy_item_sku).sort(),
        ['CASE-IP17PRO-CLR', 'PROT-PX9-GLSP001', 'PROT-PX9-GLSP002'],
        'before 2026-03-22 the warehouse SKU; after it the SKU plus P<nnn>',
      );
    });
  });
});

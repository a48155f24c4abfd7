import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { ProductChange } from '../../src/modules/catalog/events.ts';
import { jobsRepo } from '../../src/platform/jobs/queue.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { png } from './helpers.ts';

describe('catalog: product changes', () => {
  /** The whole product list, page by page. */
  const listAll = async () => {
    const out: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(
        t,
        'GET',
        `/v2/products?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      out.push(...page.data.products);
      cursor = page.data.nextCursor;
    } while (cursor);
    return out;
  };
  let t: TestApp;
  const heard: ProductChange[] = [];
  const byName = (name: string) => t.seed.organizations[0].products!.find((p) => p.name === name)!.reference;
  before(async () => {
    t = await createTestApp();
    t.s.catalog.onProductChanged(async (c) => {
      heard.push(c);
    });
  });
  after(() => t.close());

  it('changes layer images: layersModified moves, the layer URL answers with a new ETag', async () => {
    const ref = byName('iPhone 15 Clear Case');
    const before = (await call(t, 'GET', `/v2/products/${ref}`)).data.product;
    const url = new URL(before.layers.images[0].url).pathname;
    const oldEtag = (await call(t, 'GET', url)).headers.etag as string;
    t.clock.set('2026-07-03T08:00:00Z');
    const layers = [
      { name: 'print-area', file: { base64: await png(30, 60, '#ff0000') } },
      { name: 'cutline', file: { generate: { width: 30, height: 60 } } },
    ];
    assert.equal((await operator(t, 'PATCH', `/catalog/products/${ref}`, { layers })).statusCode, 200);
    const after = (await call(t, 'GET', `/v2/products/${ref}`)).data.product;
    assert.equal(after.layersModified, '2026-07-03T08:00:00.000Z');
    assert.equal(after.layers.modified, '2026-07-03T08:00:00.000Z');
    assert.equal(after.printModified, before.printModified);
    const fresh = await call(t, 'GET', url, { headers: { 'if-none-match': oldEtag } });
    assert.equal(fresh.statusCode, 200);
    assert.notEqual(fresh.headers.etag, oldEtag);
    assert.equal((await sharp(fresh.rawPayload).metadata()).width, 30);

    t.clock.set('2026-07-04T08:00:00Z');
    await operator(t, 'PATCH', `/catalog/products/${ref}`, { layers });
    assert.equal(
      (await call(t, 'GET', `/v2/products/${ref}`)).data.product.layersModified,
      '2026-07-03T08:00:00.000Z',
      'same layers again change nothing',
    );
    await operator(t, 'PATCH', `/catalog/products/${ref}`, {
      media: [{ name: 'front.png', kind: 'example_image', file: { generate: { width: 50, height: 50 } } }],
    });
    assert.equal(
      (await call(t, 'GET', `/v2/products/${ref}`)).data.product.layersModified,
      '2026-07-03T08:00:00.000Z',
      'media are no layers',
    );
  });

  it('replacing an example render gives it a new file name; the old URL is gone', async () => {
    const ref = byName('Galaxy S27 Clear Case');
    const before = (await call(t, 'GET', `/v2/products/${ref}`)).data.product;
    const oldRender = before.media.find((m: any) => m.kind === 'example_render');
    const res = await operator(t, 'PATCH', `/catalog/products/${ref}`, {
      media: [
        {
          name: 'front.png',
          kind: 'example_image',
          // The same picture as the seed's: unchanged bytes keep their date.
          file: { picture: { view: 'back' } },
        },
        { name: 'lifestyle.jpg', kind: 'example_render', file: { generate: { width: 320, height: 240 } } },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    const render = res.data.product.media.find((m: any) => m.kind === 'example_render');
    assert.notEqual(render.filename, oldRender.filename);
    assert.equal((await call(t, 'GET', `/v2/products/${ref}/media/${oldRender.filename}`)).statusCode, 404);
    assert.equal((await call(t, 'GET', `/v2/products/${ref}/media/${render.filename}`)).statusCode, 200);
    const image = res.data.product.media.find((m: any) => m.filename === 'front.png');
    assert.equal(
      image.modified,
      before.media.find((m: any) => m.filename === 'front.png').modified,
      'unchanged example image keeps its date',
    );
  });

  it('a status change enqueues catalog.product_changed, whose job calls the listeners', async () => {
    heard.length = 0;
    const ref = byName('Galaxy S27 Clear Case');
    const res = await operator(t, 'PATCH', `/catalog/products/${ref}`, { status: 'launched' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.product.status, 'launched');
    assert.equal(heard.length, 0, 'listeners run in the job, after commit');
    await t.s.worker.drain();
    assert.deepEqual(heard, [
      { productReference: ref, organizationIds: 'all', status: { from: 'prelaunched', to: 'launched' } },
    ]);

    heard.length = 0;
    const walnut = byName('Demo Walnut Leather Case iPhone 15');
    await operator(t, 'PATCH', `/catalog/products/${walnut}`, { status: 'sunsetted' });
    await t.s.worker.drain();
    assert.deepEqual(heard, [
      {
        productReference: walnut,
        organizationIds: [t.seed.organizations[0].reference],
        status: { from: 'launched', to: 'sunsetted' },
      },
    ]);
  });

  it('a stock change across zero tells every product of the item; other stock changes do not', async () => {
    heard.length = 0;
    const walnut = byName('Demo Walnut Leather Case iPhone 15');
    const sand = byName('Demo Sand Leather Case iPhone 15');
    assert.equal(
      (await operator(t, 'PUT', '/catalog/items/DEMO-IP15-LTH/stock', { logicalQuantity: 5 })).statusCode,
      200,
    );
    await t.s.worker.drain();
    assert.equal(heard.length, 0);
    const zero = await operator(t, 'PUT', '/catalog/items/DEMO-IP15-LTH/stock', {
      logicalQuantity: 0,
      physicalQuantity: 1,
    });
    assert.deepEqual(zero.data.item, {
      reference: zero.data.item.reference,
      sku: 'DEMO-IP15-LTH',
      organizationReference: t.seed.organizations[0].reference,
      logicalQuantity: 0,
      physicalQuantity: 1,
    });
    await t.s.worker.drain();
    assert.deepEqual(heard.map((c) => c.productReference).sort(), [walnut, sand].sort());
    assert.ok(heard.every((c) => c.stockCrossedZero === true && c.status === undefined));
    const listed = (await listAll()).find((p: any) => p.reference === sand);
    assert.equal(listed.availableQuantity, 0);

    heard.length = 0;
    await operator(t, 'PATCH', `/catalog/products/${sand}`, { stock: { logicalQuantity: 7 } });
    await t.s.worker.drain();
    assert.equal(heard.length, 2, 'back in stock through a product change: both products of the item hear it');
    assert.equal((await call(t, 'GET', '/v2/items')).data.items[0].logicalQuantity, 7);
    assert.equal((await operator(t, 'PUT', '/catalog/items/NOPE/stock', { logicalQuantity: 1 })).statusCode, 404);
  });

  it('keeps the lifecycle rules', async () => {
    const launched = byName('iPhone 15 Clear Case');
    const back = await operator(t, 'PATCH', `/catalog/products/${launched}`, { status: 'announced' });
    assert.equal(back.statusCode, 409);
    assert.equal(back.data.code, 'invalid_status_transition');
    const announced = byName('iPhone 18 Clear Case');
    const early = await operator(t, 'PATCH', `/catalog/products/${announced}`, { status: 'prelaunched' });
    assert.equal(early.statusCode, 409);
    assert.equal(early.data.code, 'print_spec_required');
    const given = await operator(t, 'PATCH', `/catalog/products/${announced}`, {
      status: 'prelaunched',
      print: { widthMm: 78, heightMm: 160, widthPx: 1842, heightPx: 3780, dpi: 600 },
    });
    assert.equal(given.statusCode, 400, 'its print area comes from the geometry, not from the operator');
    assert.equal(given.data.code, 'print_spec_from_geometry');
    const still = (await call(t, 'GET', `/v2/products/${announced}`)).data.product;
    assert.deepEqual([still.status, still.print], ['announced', null], 'nothing written');
    const protector = byName('iPhone 15 Tempered Glass Screen Protector');
    const noPrint = await operator(t, 'PATCH', `/catalog/products/${protector}`, {
      print: { widthMm: 1, heightMm: 1, widthPx: 1, heightPx: 1, dpi: 1 },
    });
    assert.equal(noPrint.statusCode, 400);
    assert.equal(noPrint.data.code, 'not_printable');
    const archived = byName('iPhone 11 Clear Case');
    assert.equal(
      (await operator(t, 'PATCH', `/catalog/products/${archived}`, { status: 'ended' })).data.code,
      'invalid_status_transition',
    );
    assert.equal((await operator(t, 'PATCH', `/catalog/products/${launched}`, {})).statusCode, 400);
    assert.equal(
      (await operator(t, 'PATCH', '/catalog/products/Product_nope', { status: 'launched' })).statusCode,
      404,
    );
  });

  it('retries the product_changed job when a listener fails', async () => {
    await t.s.worker.drain();
    let failures = 1;
    const seen: string[] = [];
    t.s.catalog.onProductChanged(async (c) => {
      if (failures-- > 0) throw new Error('listener down');
      seen.push(c.productReference);
    });
    const ref = byName('iPhone 12 Clear Case');
    assert.equal((await operator(t, 'PATCH', `/catalog/products/${ref}`, { status: 'archived' })).statusCode, 200);
    await t.s.worker.drain();
    assert.deepEqual(seen, []);
    const [job] = await jobsRepo.list(t.db, { kind: 'catalog.product_changed', status: 'pending', limit: 1 });
    assert.equal(job.last_error, 'listener down');
    t.clock.advance(60_000);
    await t.s.worker.drain();
    assert.deepEqual(seen, [ref]);
    const listed = (await listAll()).map((p: any) => p.reference);
    assert.ok(listed.length > 400);
    assert.ok(!listed.includes(ref), 'archived leaves the list');
  });

  it('lets operators see any product with its visibility', async () => {
    const walnut = byName('Demo Walnut Leather Case iPhone 15');
    const res = await operator(t, 'GET', `/catalog/products/${walnut}`);
    assert.equal(res.data.product.privateOrganizationReference, t.seed.organizations[0].reference);
    const archived = await operator(t, 'GET', `/catalog/products/${byName('iPhone 11 Clear Case')}`);
    assert.equal(archived.data.product.status, 'archived');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { stringify as toYaml } from 'yaml';
import { demoCatalogFile } from '../../src/seed/catalog.ts';
import { jobsRepo } from '../../src/platform/jobs/queue.ts';
import { OPERATOR_TOKEN, type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { png } from './helpers.ts';

const yamlImport = (t: TestApp, doc: unknown, type = 'application/yaml') =>
  call(t, 'POST', '/operator/catalog/import', {
    key: null,
    payload: typeof doc === 'string' ? doc : toYaml(doc),
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': type },
  });
const changedJobs = async (t: TestApp) =>
  (await jobsRepo.list(t.db, { kind: 'catalog.product_changed', limit: 500 })).map((j) => ({ id: j.id, ...j.payload }));

describe('catalog: operator import', () => {
  let t: TestApp;
  const byName = (name: string) => t.seed.organizations[0].products!.find((p) => p.name === name)!.reference;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('re-applying the demo catalog changes nothing and emits no events', async () => {
    const before = await changedJobs(t);
    const orgIds = t.seed.organizations.map((o) => o.reference);
    // The demo's Shopify orders reserved stock of their products' items; the file sets it back.
    const shopify = t.seed.organizations[0].stores.find((x) => x.integration === 'shopify')!.reference;
    const reserved = new Set(
      (await call(t, 'GET', `/v2/orders?storeReference=${shopify}`)).data.orders.flatMap((o: any) =>
        o.orderlines.map((l: any) => l.productReference),
      ),
    ).size;
    const again = await t.s.catalog.importCatalog(demoCatalogFile(orgIds));
    for (const [kind, c] of Object.entries(again.summary))
      assert.deepEqual(
        { ...c, unchanged: 0 },
        { created: 0, updated: kind === 'items' ? reserved : 0, unchanged: 0 },
        kind,
      );
    assert.ok(again.summary.products.unchanged > 400);
    assert.deepEqual(await t.s.catalog.productSummaries(orgIds[0]), t.seed.organizations[0].products);
    assert.deepEqual(await changedJobs(t), before);
    const p = await call(t, 'GET', `/v2/products/${byName('iPhone 15 Clear Case')}`);
    assert.equal(p.data.product.layersModified, '2023-05-25T09:00:00.000Z');
  });

  it('imports a YAML catalog file and re-applies it idempotently', async () => {
    t.clock.set('2026-06-01T10:00:00Z');
    const doc = {
      productgroups: [{ code: 'nothing-3-cases', name: 'Nothing Phone (3) cases', price: 1295 }],
      packagings: [{ code: 'eco-sleeve', name: 'Eco sleeve' }],
      items: [{ sku: 'CASE-NP3-CLR', logicalQuantity: 10 }],
      products: [
        {
          name: 'Nothing Phone (3) Clear Case',
          productgroup: 'nothing-3-cases',
          item: 'CASE-NP3-CLR',
          status: 'launched',
          printable: true,
          print: { widthMm: 72, heightMm: 150, widthPx: 1700, heightPx: 3543, dpi: 600 },
          layers: [{ name: 'print-area', file: { base64: await png(40, 80, '#ffffff') } }],
          media: [
            { name: 'front.png', kind: 'example_image', file: { generate: { width: 64, height: 64, text: 'Pixel' } } },
          ],
        },
        {
          name: 'Nothing Phone (3) Clear Case (MagSafe)',
          productgroup: 'nothing-3-cases',
          item: 'CASE-NP3-CLR',
          status: 'announced',
          printable: true,
        },
        {
          name: 'Pixel 9 Old Stock Case',
          legacyItemSku: 'CASE-PX9-OLD',
          productgroup: 'nothing-3-cases',
          item: 'CASE-NP3-CLR',
          status: 'ended',
          printable: true,
          created: '2025-01-01T00:00:00Z',
          print: { widthMm: 72, heightMm: 150, widthPx: 1700, heightPx: 3543, dpi: 600 },
        },
      ],
    };
    const first = await yamlImport(t, doc);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.data.summary.products, { created: 3, updated: 0, unchanged: 0 });
    assert.deepEqual(first.data.summary.productgroups, { created: 1, updated: 0, unchanged: 0 });
    const [clear, magsafe, old] = first.data.references.products;
    assert.equal(clear.legacyItemSku, 'CASE-NP3-CLRP001', 'after 2026-03-22: warehouse SKU plus P<nnn>');
    assert.equal(magsafe.legacyItemSku, 'CASE-NP3-CLRP002');
    assert.equal(old.legacyItemSku, 'CASE-PX9-OLD');

    const second = await yamlImport(t, doc, 'text/yaml');
    assert.equal(second.statusCode, 200);
    assert.deepEqual(second.data.summary, {
      devices: { created: 0, updated: 0, unchanged: 0 },
      productgroups: { created: 0, updated: 0, unchanged: 1 },
      packagings: { created: 0, updated: 0, unchanged: 1 },
      items: { created: 0, updated: 0, unchanged: 1 },
      products: { created: 0, updated: 0, unchanged: 3 },
    });
    assert.deepEqual(
      second.data.references.products.map((p: any) => p.reference),
      [clear.reference, magsafe.reference, old.reference],
    );
    const json = await operator(t, 'POST', '/catalog/import', doc);
    assert.equal(json.data.summary.products.unchanged, 3, 'JSON and YAML are the same document');

    const detail = (await call(t, 'GET', `/v2/products/${clear.reference}`)).data.product;
    assert.equal(detail.price, 1295);
    assert.equal(detail.layersModified, '2026-06-01T10:00:00.000Z');
    assert.equal(detail.media[0].filename, 'front.png');
    const file = await call(t, 'GET', new URL(detail.media[0].url).pathname);
    assert.equal((await sharp(file.rawPayload).metadata()).width, 64);
    assert.equal(
      (await call(t, 'GET', `/v2/products/${clear.reference}`, { key: t.otherKey })).statusCode,
      200,
      'a public productgroup is visible to all',
    );
  });

  it('gives a pre-2026-03-22 product the warehouse SKU and refuses a second one on the same item', async () => {
    const doc = {
      items: [{ sku: 'CASE-OLD-ONE' }],
      products: [
        {
          name: 'Old one',
          productgroup: 'screen-protectors',
          item: 'CASE-OLD-ONE',
          status: 'ended',
          printable: false,
          created: '2025-02-01T00:00:00Z',
        },
      ],
    };
    const res = await operator(t, 'POST', '/catalog/import', doc);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.references.products[0].legacyItemSku, 'CASE-OLD-ONE');
    const lookup = await call(
      t,
      'GET',
      '/v2/utilities/lookup-product-reference-by-legacy-sku?legacyItemSku=CASE-OLD-ONE',
    );
    assert.equal(lookup.data.productReference, res.data.references.products[0].reference);
    const clash = await operator(t, 'POST', '/catalog/import', { products: [{ ...doc.products[0], name: 'Old two' }] });
    assert.equal(clash.statusCode, 409);
    assert.equal(clash.data.code, 'legacy_sku_in_use');
  });

  it('changes the print specification: printModified moves, layersModified stays', async () => {
    const clear = byName('iPhone 15 Clear Case');
    const refused = await operator(t, 'PATCH', `/catalog/products/${clear}`, {
      print: { widthMm: 78.5, heightMm: 153.8, widthPx: 1855, heightPx: 3633, dpi: 600 },
    });
    assert.equal(refused.statusCode, 400, 'a case with a device takes its print area from the geometry');
    assert.equal(refused.data.code, 'print_spec_from_geometry');
    const ref = (
      await call(t, 'GET', '/v2/utilities/lookup-product-reference-by-legacy-sku?legacyItemSku=CASE-PX9-OLD')
    ).data.productReference;
    const layersBefore = (await call(t, 'GET', `/v2/products/${ref}`)).data.product.layersModified;
    t.clock.set('2026-07-01T08:00:00Z');
    const res = await operator(t, 'PATCH', `/catalog/products/${ref}`, {
      print: { widthMm: 78.5, heightMm: 153.8, widthPx: 1855, heightPx: 3633, dpi: 600 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const p = (await call(t, 'GET', `/v2/products/${ref}`)).data.product;
    assert.equal(p.printModified, '2026-07-01T08:00:00.000Z');
    assert.equal(p.print.modified, '2026-07-01T08:00:00.000Z');
    assert.equal(p.print.widthMm, 78.5);
    assert.equal(p.layersModified, layersBefore);
    t.clock.set('2026-07-02T08:00:00Z');
    await operator(t, 'PATCH', `/catalog/products/${ref}`, {
      print: { widthMm: 78.5, heightMm: 153.8, widthPx: 1855, heightPx: 3633, dpi: 600 },
    });
    assert.equal(
      (await call(t, 'GET', `/v2/products/${ref}`)).data.product.printModified,
      '2026-07-01T08:00:00.000Z',
      'the same dimensions again change nothing',
    );
  });

  it('rejects bad catalog files with clear errors and changes nothing', async () => {
    const product = {
      name: 'Bad',
      productgroup: 'clear-cases',
      item: 'CASE-IP15-CLR',
      status: 'launched',
      printable: true,
    };
    const cases: Array<[unknown, number, string, RegExp?]> = [
      [{ products: [{ ...product, productgroup: 'nope' }] }, 400, 'invalid_request', /productgroup nope/],
      [{ products: [{ ...product, color: 'red' }] }, 400, 'invalid_request', /products\[0\]\.color/],
      [{ products: [{ ...product, status: 'live' }] }, 400, 'invalid_request'],
      [
        { products: [{ ...product, media: [{ name: 'a.png', kind: 'example_image', file: { base64: '!!!' } }] }] },
        400,
        'invalid_request',
        /base64/,
      ],
      [
        {
          products: [
            {
              ...product,
              media: [
                {
                  name: 'a.png',
                  kind: 'example_image',
                  file: { base64: Buffer.from('hello, not an image').toString('base64') },
                },
              ],
            },
          ],
        },
        400,
        'invalid_image',
      ],
      [
        {
          products: [
            {
              ...product,
              media: [{ name: 'a.jpg', kind: 'example_image', file: { base64: await png(4, 4, '#000000') } }],
            },
          ],
        },
        400,
        'invalid_image',
        /name says jpeg/,
      ],
      [
        {
          products: [
            {
              ...product,
              media: [{ name: 'layer-x.png', kind: 'example_image', file: { generate: { width: 4, height: 4 } } }],
            },
          ],
        },
        400,
        'invalid_request',
      ],
      [
        {
          products: [
            { ...product, printable: false, layers: [{ name: 'x', file: { generate: { width: 4, height: 4 } } }] },
          ],
        },
        400,
        'not_printable',
      ],
      [
        { productgroups: [{ code: 'x', name: 'X', price: 1, privateOrganization: 'Organization_nope' }] },
        400,
        'invalid_request',
        /privateOrganization/,
      ],
      [
        {
          productgroups: [
            { code: 'dup', name: 'X', price: 1 },
            { code: 'dup', name: 'Y', price: 2 },
          ],
        },
        400,
        'invalid_request',
        /twice/,
      ],
      [{ items: [{ sku: 'CASE-IP15-CLR', reference: 'Item_0123456789abcdefghjkmnpqrs' }] }, 409, 'reference_mismatch'],
      [{ products: [{ ...product, name: 'iPhone 15 Clear Case', printable: false }] }, 409, 'printable_immutable'],
      [{ products: [{ ...product, price: -1 }] }, 400, 'invalid_request'],
    ];
    const count = async () => (await t.db.query<{ n: string }>('SELECT count(*) AS n FROM products'))[0].n;
    const before = await count();
    for (const [doc, status, code, message] of cases) {
      const res = await operator(t, 'POST', '/catalog/import', doc);
      assert.equal(res.statusCode, status, `${JSON.stringify(doc).slice(0, 200)} → ${res.body}`);
      assert.equal(res.data.code, code, res.body);
      if (message) assert.match(res.data.message, message);
    }
    const yamlBad = await yamlImport(t, 'products: [unclosed');
    assert.equal(yamlBad.statusCode, 400);
    assert.match(yamlBad.data.message, /YAML/);
    const scalar = await yamlImport(t, 'just a string');
    assert.equal(scalar.statusCode, 400);
    const text = await call(t, 'POST', '/operator/catalog/import', {
      key: null,
      payload: 'x',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'text/plain' },
    });
    assert.equal(text.statusCode, 415, text.body);
    const noToken = await call(t, 'POST', '/operator/catalog/import', { key: null, body: {} });
    assert.equal(noToken.statusCode, 401);
    assert.equal(await count(), before, 'nothing half-written');
  });

  it('a later transaction failure leaves no partial import behind', async () => {
    const res = await operator(t, 'POST', '/catalog/import', {
      productgroups: [{ code: 'half-written', name: 'Half', price: 1 }],
      products: [{ name: 'X', productgroup: 'half-written', item: 'NOPE-SKU', status: 'launched', printable: false }],
    });
    assert.equal(res.statusCode, 400);
    const groups = (await call(t, 'GET', '/v2/productgroups?limit=100')).data.productgroups;
    assert.ok(!groups.some((g: any) => g.name === 'Half'));
  });

  it('pins references given in the file and follows a productgroup turning private', async () => {
    const pinned = {
      group: 'Productgroup_0123456789abcdefghjkmnpqrs',
      item: 'Item_0123456789abcdefghjkmnpqrs',
      product: 'Product_0123456789abcdefghjkmnpqrs',
    };
    const doc = {
      productgroups: [{ code: 'pinned-group', reference: pinned.group, name: 'Pinned', price: 500 }],
      items: [{ sku: 'PINNED-1', reference: pinned.item, logicalQuantity: 1 }],
      products: [
        {
          reference: pinned.product,
          name: 'Pinned product',
          productgroup: pinned.group,
          item: pinned.item,
          status: 'launched',
          printable: false,
        },
      ],
    };
    const first = await operator(t, 'POST', '/catalog/import', doc);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.data.references.products[0].reference, pinned.product);
    const renamed = await operator(t, 'POST', '/catalog/import', {
      ...doc,
      products: [{ ...doc.products[0], name: 'Pinned product, renamed' }],
    });
    assert.deepEqual(renamed.data.summary.products, { created: 0, updated: 1, unchanged: 0 });
    assert.equal(
      (await call(t, 'GET', `/v2/products/${pinned.product}`, { key: t.otherKey })).data.product.name,
      'Pinned product, renamed',
    );

    const secondOrg = t.seed.organizations[1].reference;
    const priv = await operator(t, 'POST', '/catalog/import', {
      productgroups: [{ ...doc.productgroups[0], privateOrganization: secondOrg }],
    });
    assert.deepEqual(priv.data.summary.productgroups, { created: 0, updated: 1, unchanged: 0 });
    assert.equal(
      (await call(t, 'GET', `/v2/products/${pinned.product}`)).statusCode,
      404,
      'now private to the other organization',
    );
    assert.equal((await call(t, 'GET', `/v2/products/${pinned.product}`, { key: t.otherKey })).statusCode, 200);
    const bad = await operator(t, 'POST', '/catalog/import', {
      products: [{ ...doc.products[0], reference: 'Product_bad' }],
    });
    assert.equal(bad.statusCode, 400);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatedTemplate } from '../../src/modules/rendering/generated.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

describe('catalog: a colourway with part colours', () => {
  let t: TestApp;
  const ref = (name: string) => t.seed.organizations[0].products!.find((p) => p.name === name)!.reference;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const doc = (colour: unknown) => ({
    items: [{ sku: 'PARTS-TEST-1', logicalQuantity: 5 }],
    products: [
      {
        name: 'Parts Tough Case',
        productgroup: 'tough-cases',
        item: 'PARTS-TEST-1',
        device: 'iphone-15',
        status: 'launched',
        printable: true,
        look: { colour },
      },
    ],
  });

  it('refuses a bad part colour naming the field, and changes nothing', async () => {
    const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM products'))[0].n;
    const before = await count();
    const bad = [
      [{ name: 'Ink', hex: '#222222', bezelHex: 'orange' }, 'body.products[0].look.colour.bezelHex'],
      [{ name: 'Ink', hex: '#222222', cameraRingHex: '#12345' }, 'body.products[0].look.colour.cameraRingHex'],
      [{ name: 'Ink', hex: '#222222', buttonHex: '#123456' }, 'body.products[0].look.colour'],
      [{ name: 'Ink', bezelHex: '#123456' }, 'body.products[0].look.colour'],
    ] as const;
    for (const [colour, field] of bad) {
      const res = await operator(t, 'POST', '/catalog/import', doc(colour));
      assert.equal(res.statusCode, 400, JSON.stringify(colour));
      assert.equal(res.data.code, 'invalid_request');
      assert.ok(res.data.message.includes(field), `${res.data.message} names ${field}`);
    }
    assert.equal(await count(), before);
  });

  it('imports part colours, shows them in the detail, and keys the stage template by them', async () => {
    const colour = { name: 'Ink/Lime', hex: '#222222', bezelHex: '#A4D65E', cameraRingHex: '#a4d65e' };
    const res = await operator(t, 'POST', '/catalog/import', doc(colour));
    assert.equal(res.statusCode, 200, res.body);
    const product = res.data.references.products[0].reference;
    const detail = (await call(t, 'GET', `/v2/products/${product}`)).data.product;
    assert.deepEqual(detail.colour, colour);
    // The seeded demo: a graphite tough case with an orange bumper and camera rim.
    const demo = ref('iPhone 15 Tough Case Graphite and Orange');
    const seeded = (await call(t, 'GET', `/v2/products/${demo}`)).data.product;
    assert.deepEqual(seeded.colour, {
      name: 'Graphite/Orange',
      hex: '#2b2d31',
      bezelHex: '#f26b1d',
      cameraRingHex: '#f26b1d',
    });
    const plain = ref('iPhone 15 Tough Case');
    assert.equal((await call(t, 'GET', `/v2/products/${plain}`)).data.product.colour, null);
    // A part colour is part of what the stage template is stored under: each colourway its own drawing.
    const shapes = await t.s.catalog.productShapes([product, demo]);
    const output = { widthPx: 400, heightPx: 400, format: 'png' as const };
    const g = { kind: 'stage', stage: 'studio', view: 'left' } as const;
    const keys = await Promise.all(
      [product, demo].map(async (p) => (await generatedTemplate(t.s, g, shapes.get(p), output)).cacheKey),
    );
    assert.notEqual(keys[0], keys[1]);
    assert.equal(shapes.get(product)!.caseType!.material.bezelHex, '#a4d65e');
    const again = await operator(t, 'POST', '/catalog/import', doc({ ...colour, bezelHex: '#a4d65f' }));
    assert.equal(again.statusCode, 200, again.body);
    const moved = (await t.s.catalog.productShapes([product])).get(product);
    assert.notEqual((await generatedTemplate(t.s, g, moved, output)).cacheKey, keys[0]);
  });
});

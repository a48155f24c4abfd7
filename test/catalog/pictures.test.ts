import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

// How the pictures are drawn is in picture-drawing.test.ts (no database, so it runs once in CI).
describe('catalog: product pictures (API)', () => {
  let t: TestApp;
  const ref = (name: string) => t.seed.organizations[0].products!.find((p) => p.name === name)!.reference;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("lists a case's back, three-quarter and side pictures in its media and serves them", async () => {
    const product = ref('iPhone 15 Tough Case');
    const res = await call(t, 'GET', `/v2/products/${product}`);
    assert.equal(res.statusCode, 200);
    const media = res.data.product.media;
    assert.deepEqual(
      media.map((m: any) => [m.filename, m.kind, m.contentType, m.width, m.height]),
      ['back', 'angle', 'side'].map((v) => [`${v}.webp`, 'example_image', 'image/webp', 1000, 1000]),
    );
    for (const m of media) {
      const file = await call(t, 'GET', `/v2/products/${product}/media/${m.filename}`);
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'image/webp');
      assert.equal(file.rawPayload.length, m.size);
      assert.equal((await sharp(file.rawPayload).metadata()).format, 'webp');
      const again = await call(t, 'GET', `/v2/products/${product}/media/${m.filename}`, {
        headers: { 'if-none-match': file.headers.etag as string },
      });
      assert.equal(again.statusCode, 304);
    }
    assert.equal((await call(t, 'GET', `/v2/products/${product}/media/top.webp`)).statusCode, 404);
    // A private product's pictures stay with its organization.
    const walnut = ref('Demo Walnut Leather Case iPhone 15');
    assert.equal((await call(t, 'GET', `/v2/products/${walnut}/media/back.webp`)).statusCode, 200);
    assert.equal((await call(t, 'GET', `/v2/products/${walnut}/media/back.webp`, { key: t.otherKey })).statusCode, 404);
  });

  it('draws a picture once: a later process finds it by its key, with the same date and bytes', async () => {
    const product = ref('Pixel 9 Leather Case');
    const first = (await call(t, 'GET', `/v2/products/${product}`)).data.product.media;
    const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM product_pictures');
    t.clock.advance(60_000);
    // The operator view goes through the same store: nothing is drawn again.
    const op = await operator(t, 'GET', `/catalog/products/${product}`);
    assert.equal(op.statusCode, 200);
    assert.deepEqual(
      op.data.product.media.map((m: any) => [m.filename, m.size, m.modified]),
      first.map((m: any) => [m.filename, m.size, m.modified]),
    );
    assert.deepEqual(await t.db.query('SELECT count(*)::int AS n FROM product_pictures'), rows);
  });

  it('draws accessories: screen protector, chargers and straps', async () => {
    for (const name of [
      'iPhone 15 Tempered Glass Screen Protector',
      'MagSafe 15W Wireless Charger',
      '20W USB-C Charger',
      'Beaded Wrist Strap',
    ]) {
      const media = (await call(t, 'GET', `/v2/products/${ref(name)}`)).data.product.media;
      assert.deepEqual(
        media.map((m: any) => m.filename),
        ['front.webp', 'angle.webp', 'side.webp'],
        name,
      );
    }
  });

  it('hands other code the pictures with their bytes', async () => {
    const pictures = await t.s.catalog.productPictures(ref('Galaxy S24 MagSafe Case'));
    assert.deepEqual(
      pictures.map((p) => p.view),
      ['back', 'angle', 'side'],
    );
    for (const p of pictures) assert.equal((await sharp(p.bytes).metadata()).width, 1000);
    assert.deepEqual(await t.s.catalog.productPictures('Product_unknown'), []);
  });

  it('imports a look and picture files; refuses a bad look or view naming the row and field, changing nothing', async () => {
    const doc = (products: unknown[]) => ({
      items: [{ sku: 'PIC-TEST-1', logicalQuantity: 5 }],
      products,
    });
    const plain = {
      name: 'Cable tie',
      productgroup: 'chargers',
      item: 'PIC-TEST-1',
      status: 'launched',
      printable: false,
    };
    const bad = [
      [{ ...plain, look: { accessory: 'screen-protector' } }, 'body.products[0].look.accessory'],
      [{ ...plain, look: { accessory: 'toaster' } }, 'body.products[0].look.accessory'],
      [{ ...plain, look: { colorHex: 'red' } }, 'body.products[0].look.colorHex'],
      [
        {
          ...plain,
          look: { accessory: 'wall-charger' },
          media: [{ name: 'x.png', kind: 'example_image', file: { picture: { view: 'top' } } }],
        },
        'body.products[0].media[0].file.picture.view',
      ],
      [
        { ...plain, media: [{ name: 'x.png', kind: 'example_image', file: { picture: { view: 'front' } } }] },
        'body.products[0].media[0].file.picture.view',
      ],
    ] as const;
    const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM products'))[0].n;
    const before = await count();
    for (const [p, field] of bad) {
      const res = await operator(t, 'POST', '/catalog/import', doc([p]));
      assert.equal(res.statusCode, 400, JSON.stringify(p));
      assert.ok(res.data.message.includes(field), `${res.data.message} names ${field}`);
    }
    assert.equal(await count(), before);

    // Without device and look a product has no pictures; with a look it has them, its own file too.
    const ok = await operator(
      t,
      'POST',
      '/catalog/import',
      doc([
        plain,
        {
          ...plain,
          name: 'Red charger',
          look: { accessory: 'wall-charger', colorHex: '#c0392b' },
          media: [{ name: 'hero.jpg', kind: 'example_image', file: { picture: { view: 'angle' } } }],
        },
      ]),
    );
    assert.equal(ok.statusCode, 200, ok.body);
    const [tie, red] = ok.data.references.products.map((p: any) => p.reference);
    assert.deepEqual((await call(t, 'GET', `/v2/products/${tie}`)).data.product.media, []);
    const op = (await operator(t, 'GET', `/catalog/products/${red}`)).data.product;
    assert.deepEqual(op.look, { accessory: 'wall-charger', colorHex: '#c0392b' });
    const media = (await call(t, 'GET', `/v2/products/${red}`)).data.product.media;
    assert.deepEqual(
      media.map((m: any) => [m.filename, m.contentType]),
      [
        ['hero.jpg', 'image/jpeg'],
        ['front.webp', 'image/webp'],
        ['angle.webp', 'image/webp'],
        ['side.webp', 'image/webp'],
      ],
    );
  });
});

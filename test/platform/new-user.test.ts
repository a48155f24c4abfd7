import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { createOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';
import { type TestApp, createTestApp } from '../support/app.ts';
import { signedIn, textOf } from '../dashboard/helpers.ts';

describe("a new user's first hour", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("the dashboard's orders list counts lines in its Lines column, items beside them", async () => {
    const image = await uploadImage(t);
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        customIdentifier: 'two-lines-five-items',
        orderlines: [
          { productReference: products(t).clear, imageReference: image, quantity: 2 },
          { productReference: products(t).leather, imageReference: image, quantity: 3 },
        ],
      }),
    );
    const page = await (await signedIn(t)).get('/dashboard/orders');
    const row = /<tr>(?:(?!<\/tr>)[\s\S])*two-lines-five-items[\s\S]*?<\/tr>/.exec(page.body)?.[0];
    assert.ok(row, `a row for ${ref}`);
    const lines = /<td data-label="Lines">([\s\S]*?)<\/td>/.exec(row)?.[1] ?? '';
    assert.equal(textOf(lines).trim(), '2 5 items', 'Lines: 2 lines, of 5 items');
  });

  it('/favicon.ico is an icon', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/x-icon');
    const ico = res.rawPayload;
    assert.deepEqual([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)], [0, 1, 3], 'an ICO of 3 images');
    const sizes = [];
    for (let i = 0; i < 3; i++) {
      const length = ico.readUInt32LE(6 + 16 * i + 8);
      const offset = ico.readUInt32LE(6 + 16 * i + 12);
      const meta = await sharp(ico.subarray(offset, offset + length)).metadata();
      assert.equal(meta.format, 'png');
      sizes.push([ico.readUInt8(6 + 16 * i), meta.width, meta.height]);
    }
    assert.deepEqual(sizes, [
      [16, 16, 16],
      [32, 32, 32],
      [48, 48, 48],
    ]);
    const svg = await t.app.inject({ method: 'GET', url: '/favicon.svg' });
    assert.equal(svg.headers['content-type'], 'image/svg+xml');
  });

  it("/docs shows the shape of this server's keys in the key field, not Scalar's placeholder", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
    assert.equal(res.statusCode, 200);
    assert.ok(!res.body.includes('QUxMIFlPVVIg'), "Scalar's placeholder is gone");
    assert.ok(res.body.includes('placeholder:"sk_test_…"'));
  });
});

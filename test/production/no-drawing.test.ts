import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrder, orderBody, products, startProduction, uploadImage } from '../orders/helpers.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

/** Drawn product pictures, counted as the catalog's list test counts them (decision 0483). */
const drawn = async (t: TestApp) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM product_pictures'))[0].n;

describe('print files and shipment documents draw no product pictures', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    // No product's pictures are drawn yet in this process or its database.
    await t.db.query('DELETE FROM product_pictures');
  });
  after(async () => t.close());

  it('makes a print file, a label and a packing slip for a product whose pictures were never drawn', async () => {
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    await startProduction(t, ref);
    await t.s.worker.drain();
    const files = await operator(t, 'GET', `/orders/${ref}/print-files`);
    assert.deepEqual(
      files.data.printFiles.map((f: any) => f.status),
      ['ready'],
      files.body,
    );
    const shipped = await operator(t, 'POST', '/shipments', { orderReferences: [ref] });
    assert.equal(shipped.statusCode, 200, shipped.body);
    await t.s.worker.drain();
    const docs = await operator(t, 'GET', `/shipments/${shipped.data.shipment.reference}/documents`);
    assert.deepEqual(
      docs.data.documents.map((d: any) => [d.kind, d.status]).sort(),
      [
        ['packing_slip', 'ready'],
        ['shipping_label', 'ready'],
      ],
      docs.body,
    );
    const slip = await operator(t, 'GET', `/shipments/${shipped.data.shipment.reference}/documents/packing-slip`);
    assert.equal(slip.statusCode, 200);
    assert.equal(await drawn(t), 0, 'nothing drawn for the print file or the documents');

    // The count sees a drawing: the product's detail lists its pictures, so asking for it draws them.
    assert.equal((await call(t, 'GET', `/v2/products/${products(t).clear}`)).statusCode, 200);
    assert.equal(await drawn(t), 3);
  });
});

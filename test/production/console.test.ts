import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrder, orderBody, uploadImage } from '../orders/helpers.ts';
import { type TestApp, createTestApp } from '../support/app.ts';
import { type Agent, OPERATOR_USER, PARTNER, signedIn, textOf } from '../dashboard/helpers.ts';
import { pdfText, popplerMissing } from '../support/pdf-tools.ts';

describe('console production queue', () => {
  let t: TestApp;
  let op: Agent;
  before(async () => {
    t = await createTestApp();
    op = await signedIn(t, OPERATOR_USER, 'console');
  });
  after(async () => t.close());
  const submit = (url: string, form: Record<string, string>) => op.submit(url, form, '/console/production');
  it('moves an order from waiting to in production to ready to ship to shipped, with its files to download', async () => {
    const order = await createOrder(t, orderBody(t, await uploadImage(t), { dropshipMinimalShippingLevel: 'tracked' }));
    let page = await op.get('/console/production');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<a href="\/console\/production" aria-current="page">Production<\/a>/);
    const waiting = textOf(page.body).split('In production (')[0];
    assert.ok(waiting.includes(order) && waiting.includes('made when production starts'));

    assert.equal((await submit('/console/production/start', { orderReference: order })).statusCode, 303);
    assert.equal((await submit('/console/production/start', { orderReference: order })).statusCode, 409);
    page = await op.get('/console/production');
    assert.match(page.body, /Line 1 × 2: <span class="badge warn">pending<\/span>/);
    await t.s.worker.drain();
    page = await op.get('/console/production');
    const link = `/console/production/orders/${order}/print-files/1`;
    assert.ok(page.body.includes(`href="${link}"`), 'a download link once the file is made');
    assert.match(textOf(page.body), /low resolution: \d+ dpi/, 'a 64 px image on a case is flagged');
    const pdf = await op.get(link);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.ok(pdf.rawPayload.subarray(0, 5).toString() === '%PDF-');

    assert.equal((await submit('/console/production/produced', { orderReference: order })).statusCode, 303);
    page = await op.get('/console/production');
    const ready = textOf(page.body).split('Ready to ship (')[1].split('Shipped this week')[0];
    assert.ok(ready.includes(order), 'produced orders are ready to ship');

    const shipped = await submit('/console/production/ship', {
      orderReference: order,
      carrier: 'PostNL',
      trackingNumber: '3STEST987654321',
    });
    assert.equal(shipped.statusCode, 303, shipped.body);
    await t.s.worker.drain();
    page = await op.get('/console/production');
    const ref = /\/console\/production\/shipments\/(Shipment_[0-9a-z]+)\/shipping-label/.exec(page.body)?.[1];
    assert.ok(ref, 'the shipment lists its label');
    const label = await op.get(`/console/production/shipments/${ref}/shipping-label`);
    assert.equal(label.statusCode, 200);
    if (!popplerMissing) assert.ok(pdfText(label.rawPayload).includes('3STEST987654321'));
    const slip = await op.get(`/console/production/shipments/${ref}/packing-slip`);
    if (!popplerMissing) assert.ok(pdfText(slip.rawPayload).includes('Packing slip'));
    assert.equal((await op.get(`/console/production/shipments/${ref}/invoice`)).statusCode, 404);
  });

  it('is the operator’s alone', async () => {
    const partner = await signedIn(t, PARTNER);
    const res = await partner.get('/console/production');
    assert.notEqual(res.statusCode, 200);
    const anon = await t.app.inject({ method: 'GET', url: '/console/production/orders/Order_x/print-files/1' });
    assert.notEqual(anon.statusCode, 200);
  });
});

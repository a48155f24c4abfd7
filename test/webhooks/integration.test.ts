import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { orderBody, uploadImage } from '../orders/helpers.ts';
import { createEndpoint } from './helpers.ts';
import { startReceiver } from './receiver.ts';

/** The events other modules write, end to end through their own endpoints. */
describe('events from orders and shipments', () => {
  let t: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    t = await createTestApp();
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
    await t.close();
  });

  it('delivers order.created, order.shipped and shipment.created with the resources as their GET shows them', async () => {
    await createEndpoint(t, rx.url, ['order.created', 'order.shipped', 'shipment.created']);
    const created = await call(t, 'POST', '/v2/orders', { body: orderBody(t, await uploadImage(t)) });
    assert.equal(created.statusCode, 200, created.body);
    const orderRef = created.data.order.reference;
    await t.s.worker.drain();
    const first = rx.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'order.created');
    assert.ok(first, 'order.created delivered');
    assert.deepEqual(first.data.order, (await call(t, 'GET', `/v2/orders/${orderRef}`)).data.order);

    const started = await call(t, 'POST', `/v2/test-helpers/orders/${orderRef}/start-production`);
    assert.equal(started.statusCode, 204, started.body);
    const shipped = await call(t, 'POST', '/v2/test-helpers/shipments', {
      body: { shipment: { orderReferences: [orderRef] } },
    });
    assert.equal(shipped.statusCode, 200, shipped.body);
    await t.s.worker.drain();
    const types = rx.received.map((r) => JSON.parse(r.body).type);
    assert.deepEqual(types.sort(), ['order.created', 'order.shipped', 'shipment.created']);
    const shipment = rx.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'shipment.created');
    assert.equal(shipment.data.shipment.reference, shipped.data.shipment.reference);
    const ids = new Set(rx.received.map((r) => r.headers['webhook-id']));
    assert.equal(ids.size, 3);
    const events = await call(t, 'GET', '/v2/events');
    for (const id of ids) assert.ok(events.data.events.some((e: any) => e.reference === id));
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createEndpoint } from './helpers.ts';
import { startReceiver } from './receiver.ts';

describe('product.updated events from the catalog', () => {
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

  it('emits product.updated with the product as GET /products/{ref} shows it, to every organization that sees it', async () => {
    await createEndpoint(t, rx.url, ['product.updated']);
    const list = await call(t, 'GET', '/v2/products?limit=100');
    assert.equal(list.statusCode, 200, list.body);
    // A launched product of a public productgroup, so that both demo organizations see it.
    const groups = (await call(t, 'GET', '/v2/productgroups?limit=100')).data.productgroups;
    const isPublic = (p: any) => groups.some((g: any) => g.reference === p.productgroupReference && !g.private);
    const product = list.data.products.find((p: any) => p.status === 'launched' && isPublic(p));
    assert.ok(product, 'a launched public demo product');
    const changed = await operator(t, 'PATCH', `/catalog/products/${product.reference}`, { status: 'sunsetted' });
    assert.equal(changed.statusCode, 200, changed.body);
    await t.s.worker.drain();

    const events = await call(t, 'GET', '/v2/events?type=product.updated');
    assert.equal(events.data.events.length, 1);
    const event = events.data.events[0];
    const shown = await call(t, 'GET', `/v2/products/${product.reference}`);
    assert.deepEqual(event.data, { product: shown.data.product, sequence: 1 });
    assert.equal(event.data.product.status, 'sunsetted');
    assert.equal(rx.received.length, 1);
    assert.equal(rx.received[0].headers['webhook-id'], event.reference);
    assert.equal(JSON.parse(rx.received[0].body).type, 'product.updated');
    // A public product: the other organization gets its own event too.
    const other = await call(t, 'GET', '/v2/events?type=product.updated', { key: t.otherKey });
    assert.equal(other.data.events.length, 1);
    assert.notEqual(other.data.events[0].reference, event.reference);
  });
});

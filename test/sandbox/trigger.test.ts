import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { expectError } from '../orders/helpers.ts';

const trigger = (t: TestApp, type: string, key = t.key) =>
  call(t, 'POST', '/v2/test-helpers/events/trigger', { key, body: { event: { type } } });

describe('event triggers', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const happened = async (type: string, about: (e: any) => boolean) => {
    const events = (await call(t, 'GET', `/v2/events?type=${type}&limit=100`)).data.events as any[];
    return events.filter(about);
  };

  for (const [type, object] of [
    ['order.created', 'order'],
    ['order.updated', 'order'],
    ['order.shipped', 'order'],
    ['shipment.created', 'shipment'],
    ['shipment.tracking_updated', 'shipment'],
    ['shipment.delivered', 'shipment'],
    ['claim.created', 'claim'],
    ['claim.updated', 'claim'],
  ] as const) {
    it(`${type} really happens, on new test objects`, async () => {
      const res = await trigger(t, type);
      assert.equal(res.statusCode, 200, res.body);
      const ref = res.data.trigger.objects[object];
      assert.ok(ref, `the ${object} it created`);
      const events = await happened(type, (e) => e.data[object]?.reference === ref);
      assert.equal(events.length, 1, `one ${type} event about ${ref}`);
    });
  }

  it('refuses an unknown type and stays within the organization', async () => {
    expectError(await trigger(t, 'product.updated'), 400, 'invalid_request');
    expectError(await trigger(t, 'nonsense'), 400, 'invalid_request');
    const before = (await call(t, 'GET', '/v2/orders?limit=100', { key: t.otherKey })).data.orders.length;
    const res = await trigger(t, 'order.created');
    assert.equal(res.statusCode, 200);
    assert.equal(
      (await call(t, 'GET', `/v2/orders/${res.data.trigger.objects.order}`, { key: t.otherKey })).statusCode,
      404,
    );
    assert.equal((await call(t, 'GET', '/v2/orders?limit=100', { key: t.otherKey })).data.orders.length, before);
  });

  it('a read-only key cannot trigger', async () => {
    const res = await trigger(t, 'order.created', t.readOnlyKey);
    assert.equal(res.statusCode, 403);
  });
});

describe('event triggers in production', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
  });
  after(() => t.close());
  it('do not exist', async () => {
    const res = await trigger(t, 'order.created', t.seed.organizations[0].apiKeys.full);
    assert.equal(res.statusCode, 404);
  });
});

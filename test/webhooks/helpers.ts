import assert from 'node:assert/strict';
import { type TestApp, call } from '../support/app.ts';

export async function createEndpoint(t: TestApp, url: string, eventTypes: string[] = ['order.created'], key?: string) {
  const res = await call(t, 'POST', '/v2/webhook-endpoints', { key, body: { webhookEndpoint: { url, eventTypes } } });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.webhookEndpoint as { reference: string; secret: string; [k: string]: any };
}

/** Deletes every endpoint of the key's organization, so each test starts with its own. */
export async function clearEndpoints(t: TestApp, key = t.key) {
  const res = await call(t, 'GET', '/v2/webhook-endpoints?limit=100', { key });
  for (const e of res.data.webhookEndpoints) await call(t, 'DELETE', `/v2/webhook-endpoints/${e.reference}`, { key });
  await t.s.worker.drain();
}

/** Records an event the way other modules do: in a transaction of their own change. */
export async function recordEvent(
  t: TestApp,
  type = 'order.created',
  data: Record<string, unknown> = {
    order: { reference: 'Order_0123456789abcdefghjkmnpqrs', status: { code: 'pending' } },
  },
  org = t.seed.organizations[0].reference,
) {
  return t.db.tx((tx) => t.s.events.record(tx, { organizationId: org, type, data }));
}

export async function deliveriesOf(t: TestApp, query: string) {
  const res = await call(t, 'GET', `/v2/webhook-deliveries?${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.data.webhookDeliveries as any[];
}

import assert from 'node:assert/strict';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { startReceiver } from './receiver.ts';

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

const HOUR = 3600_000;

/** A test app with a short retry schedule and time-out, and a real receiver for its webhooks. */
export async function receiverTestApp() {
  const t = await createTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: '5,60,120', CALLBACK_TIMEOUT_MS: '400' } });
  const rx = await startReceiver();
  return { t, rx };
}

/** Before each test: no endpoints, nothing received, a receiver answering 204. */
export async function resetDeliveries(t: TestApp, rx: Awaited<ReturnType<typeof startReceiver>>) {
  await clearEndpoints(t);
  // Retries still queued for the deleted endpoints of earlier tests come due and stop.
  t.clock.advance(HOUR);
  await t.s.worker.drain();
  rx.received.length = 0;
  rx.set(() => 204);
}

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type TestApp, call } from '../support/app.ts';
import { signedIn, textOf } from '../dashboard/helpers.ts';
import { createEndpoint, deliveriesOf, receiverTestApp, recordEvent, resetDeliveries } from './helpers.ts';
import { startReceiver } from './receiver.ts';

const HOUR = 3600_000;

describe('webhook delivery: endpoints that fail, are deleted or are gone', () => {
  let t: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    ({ t, rx } = await receiverTestApp());
  });
  after(async () => {
    await rx.close();
    await t.close();
  });
  beforeEach(() => resetDeliveries(t, rx));

  it('stops queued retries of a deleted endpoint and refuses to resend to it', async () => {
    rx.set(() => 500);
    const ep = await createEndpoint(t, rx.url);
    const event = await recordEvent(t);
    await t.s.worker.drain();
    assert.equal((await call(t, 'DELETE', `/v2/webhook-endpoints/${ep.reference}`)).statusCode, 204);
    t.clock.advance(5000);
    await t.s.worker.drain();
    const [d] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.equal(d.status, 'failed');
    assert.match(d.attempts[1].error, /deleted/);
    assert.equal(rx.received.length, 1);
    const res = await call(t, 'POST', `/v2/webhook-deliveries/${d.reference}/resend`);
    assert.equal(res.statusCode, 409);
    assert.equal(res.data.code, 'webhook_endpoint_deleted');
  });

  it('disables an endpoint that failed for 3 days straight (WEBHOOK_DISABLE_AFTER_HOURS) and says why', async () => {
    rx.set(() => 500);
    const ep = await createEndpoint(t, rx.url);
    await recordEvent(t);
    await t.s.worker.drain();
    t.clock.advance(2 * 24 * HOUR);
    await t.s.worker.drain();
    assert.equal(
      (await call(t, 'GET', `/v2/webhook-endpoints/${ep.reference}`)).data.webhookEndpoint.enabled,
      true,
      'not yet: 2 days',
    );
    t.clock.advance(24 * HOUR);
    await recordEvent(t);
    await t.s.worker.drain();
    const shown = (await call(t, 'GET', `/v2/webhook-endpoints/${ep.reference}`)).data.webhookEndpoint;
    assert.equal(shown.enabled, false);
    assert.match(shown.disabledReason, /every delivery failed since/);
    assert.match(shown.disabledReason, /HTTP 500/);

    // A disabled endpoint gets no new deliveries; its queued retries stop.
    const before = rx.received.length;
    const later = await recordEvent(t);
    t.clock.advance(HOUR);
    await t.s.worker.drain();
    assert.equal(rx.received.length, before);
    assert.deepEqual(await deliveriesOf(t, `eventReference=${later.reference}`), []);
    const resend = await call(
      t,
      'POST',
      `/v2/webhook-deliveries/${(await deliveriesOf(t, `endpointReference=${ep.reference}`))[0].reference}/resend`,
    );
    assert.equal(resend.statusCode, 409);
    assert.equal(resend.data.code, 'webhook_endpoint_disabled');

    const enabled = await call(t, 'PATCH', `/v2/webhook-endpoints/${ep.reference}`, {
      body: { webhookEndpoint: { enabled: true } },
    });
    assert.equal(enabled.data.webhookEndpoint.enabled, true);
    assert.equal(enabled.data.webhookEndpoint.disabledReason, null);
  });

  it('a 410 Gone disables the endpoint at once and tells the organization through an event', async () => {
    rx.set(() => 410);
    const watcher = await startReceiver(() => 204);
    try {
      const ep = await createEndpoint(t, rx.url);
      const other = await createEndpoint(t, watcher.url, ['webhook_endpoint.disabled']);
      const event = await recordEvent(t);
      await t.s.worker.drain();
      const shown = (await call(t, 'GET', `/v2/webhook-endpoints/${ep.reference}`)).data.webhookEndpoint;
      assert.equal(shown.enabled, false);
      assert.match(shown.disabledReason, /410 Gone/);
      const [d] = await deliveriesOf(t, `eventReference=${event.reference}`);
      assert.equal(d.status, 'failed', 'no retry after 410');
      assert.equal(d.attempts.length, 1);
      const told = watcher.received.map((r) => JSON.parse(r.body));
      assert.equal(told.length, 1);
      assert.equal(told[0].type, 'webhook_endpoint.disabled');
      assert.equal(told[0].data.webhookEndpoint.reference, ep.reference);
      // The dashboard says so too, with the reason, on the list and the endpoint's page.
      const a = await signedIn(t);
      for (const page of ['/dashboard/webhooks', `/dashboard/webhooks/${ep.reference}`]) {
        const text = textOf((await a.get(page)).body);
        assert.match(text, /disabled[^.]*Disabled on \S+: the endpoint answered 410 Gone/, page);
      }
      await call(t, 'DELETE', `/v2/webhook-endpoints/${other.reference}`);
    } finally {
      await watcher.close();
    }
  });

  it('a success ends the failure streak', async () => {
    rx.set(() => 500);
    const ep = await createEndpoint(t, rx.url);
    await recordEvent(t);
    await t.s.worker.drain();
    t.clock.advance(3 * 24 * HOUR);
    rx.set(() => 200);
    await recordEvent(t);
    await t.s.worker.drain();
    rx.set(() => 500);
    t.clock.advance(3 * 24 * HOUR);
    await recordEvent(t);
    await t.s.worker.drain();
    assert.equal((await call(t, 'GET', `/v2/webhook-endpoints/${ep.reference}`)).data.webhookEndpoint.enabled, true);
  });
});

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it, mock } from 'node:test';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { jobsRepo } from '../../src/platform/jobs/queue.ts';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { createServices } from '../../src/services.ts';
import { type TestApp, call } from '../support/app.ts';
import { createEndpoint, deliveriesOf, receiverTestApp, recordEvent, resetDeliveries } from './helpers.ts';
import { startReceiver } from './receiver.ts';

const HOUR = 3600_000;

/** Verifies as a receiver would, with the receiver's clock set to the test clock. */
function verifyAt(t: TestApp, secret: string, body: string, headers: Record<string, string>): unknown {
  const now = mock.method(Date, 'now', () => t.clock.now().getTime());
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    now.mock.restore();
  }
}

describe('webhook delivery to a real receiver', () => {
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

  it('delivers a signed Standard Webhooks payload that verifies with the receiver library', async () => {
    const ep = await createEndpoint(t, rx.url, ['order.created', 'order.shipped']);
    const ignored = await createEndpoint(t, rx.url, ['claim.created']);
    const event = await recordEvent(t);
    assert.match(event.reference, /^Event_[0-9a-hjkmnp-tv-z]{26}$/);
    assert.equal(await t.s.worker.drain(), 1);
    assert.equal(rx.received.length, 1);
    const got = rx.received[0];
    assert.equal(got.headers['webhook-id'], event.reference);
    assert.equal(got.headers['content-type'], 'application/json');
    const payload = verifyAt(t, ep.secret, got.body, got.headers) as any;
    assert.deepEqual(Object.keys(payload), ['type', 'timestamp', 'data']);
    assert.equal(payload.type, 'order.created');
    assert.equal(payload.data.order.reference, 'Order_0123456789abcdefghjkmnpqrs');
    assert.equal(payload.timestamp, (await call(t, 'GET', `/v2/events/${event.reference}`)).data.event.timestamp);
    assert.throws(() => verifyAt(t, ignored.secret, got.body, got.headers), /No matching signature/);
    assert.throws(
      () => verifyAt(t, ep.secret, got.body.replace('pending', 'shipped'), got.headers),
      /No matching signature/,
    );

    const [d] = await deliveriesOf(t, `endpointReference=${ep.reference}`);
    assert.match(d.reference, /^Delivery_[0-9a-hjkmnp-tv-z]{26}$/);
    assert.equal(d.eventReference, event.reference);
    assert.equal(d.eventType, 'order.created');
    assert.equal(d.status, 'succeeded');
    assert.equal(d.nextAttempt, null);
    assert.equal(d.attempts.length, 1);
    assert.equal(d.attempts[0].responseStatus, 204);
    assert.equal(d.attempts[0].error, null);
    assert.equal(typeof d.attempts[0].durationMs, 'number');
    assert.deepEqual(await deliveriesOf(t, `endpointReference=${ignored.reference}`), []);
  });

  it('delivers to several endpoints as separate jobs, so a slow one does not block the others', async () => {
    const slow = await startReceiver(() => 'hang');
    try {
      await createEndpoint(t, slow.url);
      const fast = await createEndpoint(t, rx.url);
      await recordEvent(t);
      const jobs = await t.db.query(
        `SELECT payload FROM jobs WHERE kind = 'webhooks.deliver' AND status = 'pending' AND run_at <= $1`,
        [t.clock.now()],
      );
      assert.equal(jobs.length, 2);
      await t.s.worker.drain();
      assert.equal(rx.received.length, 1);
      const [d] = await deliveriesOf(t, `endpointReference=${fast.reference}`);
      assert.equal(d.status, 'succeeded');
    } finally {
      await slow.close();
    }
  });

  it('retries on the schedule: a receiver failing twice then succeeding shows three attempts', async () => {
    rx.set((n) => (n < 2 ? 500 : 200));
    const ep = await createEndpoint(t, rx.url);
    const event = await recordEvent(t);
    await t.s.worker.drain();
    let [d] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempts.length, 1);
    assert.equal(d.attempts[0].responseStatus, 500);
    assert.match(d.attempts[0].error, /HTTP 500/);
    assert.equal(d.nextAttempt, new Date(t.clock.now().getTime() + 5000).toISOString());

    await t.s.worker.drain();
    assert.equal(rx.received.length, 1, 'nothing before the retry is due');
    t.clock.advance(5000);
    await t.s.worker.drain();
    [d] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.equal(d.attempts.length, 2);
    assert.equal(d.nextAttempt, new Date(t.clock.now().getTime() + 60_000).toISOString());
    t.clock.advance(60_000);
    await t.s.worker.drain();

    [d] = await deliveriesOf(t, `endpointReference=${ep.reference}&status=succeeded`);
    assert.equal(d.status, 'succeeded');
    assert.deepEqual(
      d.attempts.map((a: any) => a.responseStatus),
      [500, 500, 200],
    );
    assert.equal(d.nextAttempt, null);
    assert.equal(rx.received.length, 3);
    assert.ok(
      rx.received.every((r) => r.headers['webhook-id'] === event.reference),
      'the same webhook-id on every retry',
    );
    for (const r of rx.received) verifyAt(t, ep.secret, r.body, r.headers);
  });

  it('makes one attempt at a time per endpoint, and a refusing endpoint backs off as a whole', async () => {
    rx.set(() => 503);
    const ep = await createEndpoint(t, rx.url);
    const events = [];
    for (let i = 0; i < 5; i++) events.push(await recordEvent(t));
    await t.s.worker.drain();
    assert.equal(rx.received.length, 1, 'one attempt, not one per queued event');
    const queued = await deliveriesOf(t, `endpointReference=${ep.reference}`);
    const later = new Date(t.clock.now().getTime() + 5000).toISOString();
    assert.deepEqual(
      queued.map((d: any) => [d.status, d.nextAttempt]),
      queued.map(() => ['pending', later]),
      'every queued delivery of the endpoint waits for the retry',
    );
    // The receiver is back: the endpoint's deliveries go one after another, each once.
    rx.set(() => 204);
    t.clock.advance(5000);
    await t.s.worker.drain();
    const done = await deliveriesOf(t, `endpointReference=${ep.reference}`);
    assert.deepEqual(
      done.map((d: any) => d.status),
      done.map(() => 'succeeded'),
    );
    assert.equal(rx.received.length, 6, 'one refused attempt, then five deliveries');
  });

  it('marks a delivery failed after the last retry of the schedule', async () => {
    rx.set(() => 503);
    await createEndpoint(t, rx.url);
    const event = await recordEvent(t);
    await t.s.worker.drain();
    for (const step of [5, 60, 120]) {
      t.clock.advance(step * 1000);
      await t.s.worker.drain();
    }
    const [d] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.equal(d.status, 'failed');
    assert.equal(d.attempts.length, 4);
    assert.equal(d.nextAttempt, null);
    t.clock.advance(HOUR);
    await t.s.worker.drain();
    assert.equal(rx.received.length, 4);
    assert.equal(
      (await deliveriesOf(t, 'status=failed')).some((x) => x.reference === d.reference),
      true,
    );
  });

  it('gives up on a receiver that hangs after the configured time-out', async () => {
    rx.set(() => 'hang');
    await createEndpoint(t, rx.url);
    const event = await recordEvent(t);
    await t.s.worker.drain();
    const [d] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempts[0].responseStatus, null);
    assert.match(d.attempts[0].error, /timed out after 400 ms/);
    assert.ok(
      d.attempts[0].durationMs >= 350 && d.attempts[0].durationMs < 5000,
      `took ${d.attempts[0].durationMs} ms`,
    );
  });

  it('resends as a new delivery with the same webhook-id', async () => {
    const ep = await createEndpoint(t, rx.url);
    const event = await recordEvent(t);
    await t.s.worker.drain();
    const [first] = await deliveriesOf(t, `eventReference=${event.reference}`);
    const res = await call(t, 'POST', `/v2/webhook-deliveries/${first.reference}/resend`);
    assert.equal(res.statusCode, 200, res.body);
    const again = res.data.webhookDelivery;
    assert.notEqual(again.reference, first.reference);
    assert.equal(again.resendOf, first.reference);
    assert.equal(again.eventReference, event.reference);
    assert.equal(again.status, 'pending');
    await t.s.worker.drain();
    assert.equal(rx.received.length, 2);
    assert.equal(rx.received[1].headers['webhook-id'], event.reference);
    assert.equal(rx.received[1].body, rx.received[0].body);
    verifyAt(t, ep.secret, rx.received[1].body, rx.received[1].headers);
    const got = await call(t, 'GET', `/v2/webhook-deliveries/${again.reference}`);
    assert.equal(got.data.webhookDelivery.status, 'succeeded');
    assert.equal((await deliveriesOf(t, `eventReference=${event.reference}`)).length, 2);
  });

  it('signs with both secrets for 24 hours after a rotation, then only with the new one', async () => {
    const ep = await createEndpoint(t, rx.url);
    const rotated = await call(t, 'POST', `/v2/webhook-endpoints/${ep.reference}/rotate-secret`);
    assert.equal(rotated.statusCode, 200);
    const newSecret = rotated.data.webhookEndpoint.secret;
    assert.match(newSecret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.notEqual(newSecret, ep.secret);
    assert.equal(
      rotated.data.webhookEndpoint.previousSecretExpires,
      new Date(t.clock.now().getTime() + 24 * HOUR).toISOString(),
    );

    await recordEvent(t);
    await t.s.worker.drain();
    const during = rx.received[0];
    assert.equal(during.headers['webhook-signature'].split(' ').length, 2);
    verifyAt(t, ep.secret, during.body, during.headers);
    verifyAt(t, newSecret, during.body, during.headers);

    t.clock.advance(24 * HOUR + 1000);
    await recordEvent(t);
    await t.s.worker.drain();
    const afterwards = rx.received[1];
    assert.equal(afterwards.headers['webhook-signature'].split(' ').length, 1);
    verifyAt(t, newSecret, afterwards.body, afterwards.headers);
    assert.throws(() => verifyAt(t, ep.secret, afterwards.body, afterwards.headers), /No matching signature/);
    const shown = await call(t, 'GET', `/v2/webhook-endpoints/${ep.reference}`);
    assert.equal(shown.data.webhookEndpoint.previousSecretExpires, null);
    assert.equal(shown.data.webhookEndpoint.secret, undefined);
  });

  it('loses nothing when the process restarts in the middle of a retry schedule', async () => {
    rx.set((n) => (n === 0 ? 500 : 204));
    await createEndpoint(t, rx.url);
    const event = await recordEvent(t);
    await t.s.worker.drain();
    const [d] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.equal(d.status, 'pending');

    // A second process on the same database: new services, new worker, nothing kept in memory.
    const restarted = createServices({
      config: t.s.config,
      db: t.db,
      clock: t.clock,
      log: pino({ level: 'silent' }) as never,
      rateLimits: new MemoryRateLimitStore(),
      secretKey: 'test-secret-key',
    });
    t.clock.advance(5000);
    // The first worker claims the retry and dies mid-attempt (its lease runs out).
    const claimed = await jobsRepo.claim(t.db, 'crashed-worker', ['webhooks.deliver'], t.clock.now(), [1000], 10);
    assert.equal(claimed.length, 1);
    assert.equal(await restarted.worker.drain(), 0, 'leased by the crashed worker');
    t.clock.advance(2000);
    assert.equal(await restarted.worker.drain(), 1);
    const [done] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempts.length, 2);
    assert.equal(rx.received.length, 2);
    await restarted.worker.stop();
  });

  it('gives up, saying why, when the stored secret cannot be decrypted (SECRET_KEY changed)', async () => {
    await createEndpoint(t, rx.url);
    const event = await recordEvent(t);
    const rekeyed = createServices({
      config: t.s.config,
      db: t.db,
      clock: t.clock,
      log: pino({ level: 'silent' }) as never,
      rateLimits: new MemoryRateLimitStore(),
      secretKey: 'another-secret-key',
    });
    assert.equal(await rekeyed.worker.drain(), 1);
    const [d] = await deliveriesOf(t, `eventReference=${event.reference}`);
    assert.equal(d.status, 'failed');
    assert.match(d.attempts[0].error, /cannot be decrypted/);
    assert.equal(rx.received.length, 0);
  });

  it('sends a ping now from the test call, also to a disabled endpoint', async () => {
    const ep = await createEndpoint(t, rx.url);
    await call(t, 'PATCH', `/v2/webhook-endpoints/${ep.reference}`, { body: { webhookEndpoint: { enabled: false } } });
    const res = await call(t, 'POST', `/v2/webhook-endpoints/${ep.reference}/test`);
    assert.equal(res.statusCode, 200, res.body);
    const d = res.data.webhookDelivery;
    assert.equal(d.eventType, 'ping');
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempts.length, 1);
    assert.equal(rx.received.length, 1);
    const payload = verifyAt(t, ep.secret, rx.received[0].body, rx.received[0].headers) as any;
    assert.equal(payload.type, 'ping');
    assert.equal(payload.data.webhookEndpoint.reference, ep.reference);
    // The safety-net job finds the attempt made and does not send again.
    t.clock.advance(HOUR);
    await t.s.worker.drain();
    assert.equal(rx.received.length, 1);
    const events = await call(t, 'GET', '/v2/events?type=ping');
    assert.ok(events.data.events.some((e: any) => e.reference === d.eventReference));
  });

  it('reports a failed ping with its error and retries it', async () => {
    rx.set(() => 500);
    const ep = await createEndpoint(t, rx.url);
    const res = await call(t, 'POST', `/v2/webhook-endpoints/${ep.reference}/test`);
    assert.equal(res.data.webhookDelivery.status, 'pending');
    assert.equal(res.data.webhookDelivery.attempts[0].responseStatus, 500);
    t.clock.advance(5000);
    rx.set(() => 200);
    await t.s.worker.drain();
    const got = await call(t, 'GET', `/v2/webhook-deliveries/${res.data.webhookDelivery.reference}`);
    assert.equal(got.data.webhookDelivery.status, 'succeeded');
    assert.equal(got.data.webhookDelivery.attempts.length, 2);
  });
});

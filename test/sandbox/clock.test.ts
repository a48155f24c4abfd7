import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import {
  DAY,
  SHIPPED,
  at,
  categories,
  itemIssues,
  packageMissing,
  shippedOrder,
  uploadEvidence,
} from '../claims/helpers.ts';
import { createOrder, expectError, orderBody, store, uploadImage } from '../orders/helpers.ts';
import { createEndpoint, clearEndpoints } from '../webhooks/helpers.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import { createRender, seeded, uploadSolid } from '../rendering/helpers.ts';

const clockOf = async (t: TestApp, key = t.key) => {
  const res = await call(t, 'GET', '/v2/test-helpers/clock', { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.clock;
};
const advance = (t: TestApp, clock: Record<string, string>, key = t.key) =>
  call(t, 'POST', '/v2/test-helpers/clock/advance', { key, body: { clock } });

describe('test clocks', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'true', CALLBACK_RETRY_SECONDS: '300' } });
  });
  after(() => t.close());

  it('runs on real time until advanced, then freezes and only moves forward', async () => {
    t.clock.set('2026-07-01T08:00:00Z');
    assert.deepEqual(await clockOf(t), { frozen: false, now: '2026-07-01T08:00:00.000Z', status: 'ready' });
    const res = await advance(t, { advanceBy: 'PT90M' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data.clock, { frozen: true, now: '2026-07-01T09:30:00.000Z', status: 'ready' });
    t.clock.advance(3600_000);
    assert.equal((await clockOf(t)).now, '2026-07-01T09:30:00.000Z', 'frozen while real time passes');
    assert.equal((await advance(t, { to: '2026-07-02T00:00:00+02:00' })).data.clock.now, '2026-07-01T22:00:00.000Z');
    expectError(await advance(t, { to: '2026-07-01T21:59:59Z' }), 400, 'clock_backwards');
    expectError(await advance(t, { advanceBy: 'one day' }), 400, 'invalid_request');
    expectError(await advance(t, { advanceBy: 'P1D', to: '2027-01-01T00:00:00Z' }), 400, 'invalid_request');
    expectError(await advance(t, {}), 400, 'invalid_request');
    assert.equal((await clockOf(t)).now, '2026-07-01T22:00:00.000Z', 'refused moves change nothing');
    assert.equal((await clockOf(t, t.otherKey)).frozen, false, "another organization's clock is its own");
    const del = await call(t, 'DELETE', '/v2/test-helpers/clock');
    assert.equal(del.statusCode, 204);
    assert.deepEqual(await clockOf(t), { frozen: false, now: t.clock.now().toISOString(), status: 'ready' });
  });

  it('stamps new records with the clock time', async () => {
    t.clock.set('2026-07-01T08:00:00Z');
    await advance(t, { to: '2027-02-03T04:05:06Z' });
    const order = await createOrder(t, orderBody(t, await uploadImage(t)));
    const res = await call(t, 'GET', `/v2/orders/${order}`);
    assert.equal(res.data.order.created, '2027-02-03T04:05:06.000Z');
    const other = await createEndpoint(t, 'http://127.0.0.1:9/hooks', ['order.created'], t.otherKey);
    assert.equal(other.created, '2026-07-01T08:00:00.000Z', 'another organization stays on real time');
    await clearEndpoints(t, t.otherKey);
    await call(t, 'DELETE', '/v2/test-helpers/clock');
  });

  it('advancing 101 days ends the warranty', async () => {
    const { shipment, order } = await shippedOrder(t);
    const cat = await categories(t);
    const claim = (comment: string) =>
      itemIssues(t, {
        shipmentReference: shipment,
        orderReference: order,
        comment,
        claimlines: [
          {
            orderlineIndex: 1,
            quantity: 1,
            claimcategoryReference: cat['Wrong item'] ?? Object.values(cat).find((c) => c !== cat['Package missing']),
            evidenceReferences: [],
          },
        ],
      });
    await advance(t, { advanceBy: 'P101D' });
    expectError(await claim('too late'), 409, 'warranty_expired');
    await call(t, 'DELETE', '/v2/test-helpers/clock');
    t.clock.set(at(SHIPPED, 10 * DAY));
    assert.notEqual((await claim('in time')).data?.code, 'warranty_expired', 'on real time the warranty runs');
  });

  it('the package-missing date follows the clock', async () => {
    const { shipment } = await shippedOrder(t, { level: 'tracked' });
    t.clock.set(at(SHIPPED, DAY));
    await advance(t, { advanceBy: 'PT1H' });
    expectError(await packageMissing(t, shipment), 409, 'shipment_too_recent', '2026-06-04');
    const res = await advance(t, { to: '2026-06-04T00:00:00+02:00' });
    assert.equal(res.data.clock.now, '2026-06-03T22:00:00.000Z');
    assert.equal(t.clock.now().toISOString(), at(SHIPPED, DAY).toISOString(), 'real time stood still');
    const filed = await packageMissing(t, shipment, [await uploadEvidence(t)]);
    assert.equal(filed.statusCode, 200, filed.body);
    await call(t, 'DELETE', '/v2/test-helpers/clock');
  });

  it('advancing a day deletes unused evidence', async () => {
    await shippedOrder(t);
    t.clock.set(at(SHIPPED, 5 * DAY));
    const ev = await uploadEvidence(t);
    const exists = async () => (await t.db.query('SELECT id FROM evidence WHERE id = $1', [ev])).length === 1;
    await advance(t, { advanceBy: 'PT23H' });
    assert.equal(await exists(), true, 'kept within the day');
    const res = await advance(t, { advanceBy: 'PT2H' });
    assert.equal(res.data.clock.status, 'ready');
    assert.equal(await exists(), false, 'deleted once the day passed on the clock');
    await call(t, 'DELETE', '/v2/test-helpers/clock');
  });

  it('advancing past a retry delay delivers a queued webhook', async () => {
    t.clock.set('2026-08-03T10:00:00Z');
    await clearEndpoints(t);
    const receiver = await startReceiver((n) => (n === 0 ? 500 : 204));
    try {
      await createEndpoint(t, receiver.url, ['order.created']);
      await advance(t, { advanceBy: 'PT1M' });
      await createOrder(t, orderBody(t, await uploadImage(t)));
      assert.equal((await clockOf(t)).status, 'advancing', 'a delivery is due and has not run yet');
      const first = await advance(t, { advanceBy: 'PT1S' });
      assert.equal(first.data.clock.status, 'ready');
      assert.equal(receiver.received.length, 1, 'the first attempt ran and failed');
      await advance(t, { advanceBy: 'PT2H' });
      assert.equal(receiver.received.length, 2, 'the retry ran when the clock passed its delay');
      const deliveries = (await call(t, 'GET', '/v2/webhook-deliveries')).data.webhookDeliveries;
      assert.equal(deliveries[0].status, 'succeeded');
      const ts = Number(receiver.received[1].headers['webhook-timestamp']) * 1000;
      assert.ok(Math.abs(ts - t.clock.now().getTime()) < 60_000, 'signatures carry the real time');
    } finally {
      await receiver.close();
      await call(t, 'DELETE', '/v2/test-helpers/clock');
      await clearEndpoints(t);
    }
  });

  it('advancing past the callback retry delay sends the order-updated callback again', async () => {
    t.clock.set('2026-08-04T10:00:00Z');
    const hits: string[] = [];
    const server = http.createServer((req, res) => {
      hits.push(req.url!);
      res.statusCode = hits.length === 1 ? 503 : 200;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
    const org = t.seed.organizations[0].reference;
    try {
      await t.s.organization.updateStore(org, store(t, 'DEMO1'), { callbackUrl: url });
      await advance(t, { advanceBy: 'PT1M' });
      const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
      await call(t, 'POST', `/v2/test-helpers/orders/${ref}/start-production`);
      await advance(t, { advanceBy: 'PT1S' });
      assert.equal(hits.length, 1, 'the first attempt ran and failed');
      await advance(t, { advanceBy: 'PT4M' });
      assert.equal(hits.length, 1, 'not before the retry delay (300 s) passed on the clock');
      await advance(t, { advanceBy: 'PT2M' });
      assert.equal(hits.length, 2, 'retried once the clock passed it');
      assert.match(hits[1], new RegExp(`order_reference_v2=${ref}`));
    } finally {
      await t.s.organization.updateStore(org, store(t, 'DEMO1'), { callbackUrl: null });
      await new Promise<void>((r) => server.close(() => r()));
      await call(t, 'DELETE', '/v2/test-helpers/clock');
    }
  });

  it('advancing to the next Monday resets the rendertokens', async () => {
    const d = seeded(t);
    t.clock.set('2026-11-18T10:00:00Z');
    const image = await uploadSolid(t, { r: 10, g: 20, b: 30 });
    const r = await createRender(t, d.cStudioIp15, image);
    assert.equal(r.statusCode, 200, r.body);
    const before = (await call(t, 'GET', '/v2/rendertokens')).data.rendertokens;
    assert.ok(before.used > 0);
    await advance(t, { to: before.resets });
    const afterReset = (await call(t, 'GET', '/v2/rendertokens')).data.rendertokens;
    assert.equal(afterReset.used, 0);
    assert.ok(Date.parse(afterReset.resets) > Date.parse(before.resets));
    assert.equal(
      (await call(t, 'GET', '/v2/rendertokens', { key: t.otherKey })).data.rendertokens.resets,
      before.resets,
    );
    await call(t, 'DELETE', '/v2/test-helpers/clock');
  });
});

describe('test clocks in production', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
  });
  after(() => t.close());
  it('do not exist', async () => {
    const key = t.seed.organizations[0].apiKeys.full;
    for (const [method, path] of [
      ['GET', '/v2/test-helpers/clock'],
      ['POST', '/v2/test-helpers/clock/advance'],
      ['DELETE', '/v2/test-helpers/clock'],
    ] as const) {
      const res = await call(t, method, path, {
        key,
        ...(method === 'POST' ? { body: { clock: { advanceBy: 'P1D' } } } : {}),
      });
      assert.equal(res.statusCode, 404, `${method} ${path}`);
    }
  });
});

import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { scheduleMaintenance } from '../../src/modules/maintenance/jobs.ts';
import { createOrder, getOrder, orderBody, ship, startProduction, store, uploadImage } from '../orders/helpers.ts';

/** A local partner server: answers with the statuses given, then 200. */
async function receiver(statuses: number[] = []) {
  const hits: URL[] = [];
  const server = http.createServer((req, res) => {
    hits.push(new URL(req.url!, 'http://receiver'));
    res.statusCode = statuses.shift() ?? 200;
    res.end(req.method);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { hits, url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const DAY = 24 * 3600_000;

describe('legacy order-updated callback', () => {
  let t: TestApp;
  let image: string;
  const orgId = () => t.seed.organizations[0].reference;
  const setCallback = (code: string, callbackUrl: string | null) =>
    t.s.organization.updateStore(orgId(), store(t, code), { callbackUrl });
  const callbackJobs = async () => (await operator(t, 'GET', '/jobs?kind=order.callback&limit=500')).data.jobs;

  before(async () => {
    t = await createTestApp({ env: { CALLBACK_RETRY_SECONDS: '300' } });
    image = await uploadImage(t);
  });
  after(() => t.close());

  it('sends a GET with the spec parameters when an order ships, keeping the URL’s own', async () => {
    const r = await receiver();
    try {
      await setCallback('DEMO1', `${r.url}/hooks/order?token=abc&store_code=MINE&environment=x`);
      const ref = await createOrder(t, orderBody(t, image, { customIdentifier: 'cb-1' }));
      await t.s.worker.drain();
      assert.equal(r.hits.length, 0, 'creating is not an order change');
      await startProduction(t, ref);
      await ship(t, [ref]);
      await t.s.worker.drain();
      assert.equal(r.hits.length, 2, 'production start and shipping');
      const q = r.hits[1].searchParams;
      const o = await getOrder(t, ref);
      assert.equal(r.hits[1].pathname, '/hooks/order');
      assert.equal(q.get('token'), 'abc');
      assert.equal(q.getAll('store_code').length, 1);
      assert.equal(q.get('store_code'), 'DEMO1', "the service's value wins");
      assert.equal(q.get('environment'), 'test');
      assert.equal(q.get('order_reference'), o.legacyOrderCode);
      assert.equal(q.get('order_reference_v2'), ref);
      assert.equal(q.get('custom_reference'), 'cb-1');
      assert.equal(q.get('partner_reference'), 'cb-1');
      assert.equal(q.get('partner_code'), 'DEMO1');
      assert.equal(q.has('via_store_code'), false);
      assert.equal(q.has('via_partner_code'), false);
    } finally {
      await r.close();
      await setCallback('DEMO1', null);
    }
  });

  it('leaves custom_reference out when the order has none, and notifies cancelations', async () => {
    const r = await receiver();
    try {
      await setCallback('DEMO1', `${r.url}/cb?custom_reference=mine&via_store_code=V1`);
      const ref = await createOrder(t, orderBody(t, image));
      await call(t, 'POST', `/v2/orders/${ref}/cancel`, { body: { orderlines: [{ index: 1, canceledQuantity: 1 }] } });
      await t.s.worker.drain();
      assert.equal(r.hits.length, 1);
      // The service sends no custom_reference or via_store_code here: the partner's own values stay.
      assert.equal(r.hits[0].searchParams.get('custom_reference'), 'mine');
      assert.equal(r.hits[0].searchParams.get('via_store_code'), 'V1');
      assert.equal(r.hits[0].searchParams.has('partner_reference'), false);
      assert.equal(r.hits[0].searchParams.get('order_reference_v2'), ref);
    } finally {
      await r.close();
      await setCallback('DEMO1', null);
    }
  });

  it('retries every CALLBACK_RETRY_SECONDS until a 2xx arrives', async () => {
    const r = await receiver([500, 404]);
    try {
      await setCallback('DEMO1', `${r.url}/flaky`);
      const ref = await createOrder(t, orderBody(t, image));
      await startProduction(t, ref);
      await t.s.worker.drain();
      assert.equal(r.hits.length, 1);
      let job = (await callbackJobs()).find((j: any) => j.payload.orderId === ref);
      assert.equal(job.status, 'pending');
      assert.equal(job.maxAttempts, null, 'retried forever');
      assert.match(job.lastError, /500/);
      assert.equal(new Date(job.runAt).getTime(), t.clock.now().getTime() + 300_000);
      await t.s.worker.drain();
      assert.equal(r.hits.length, 1, 'not before the retry delay');
      t.clock.advance(300_000);
      await t.s.worker.drain();
      assert.equal(r.hits.length, 2);
      t.clock.advance(300_000);
      await t.s.worker.drain();
      assert.equal(r.hits.length, 3);
      job = (await callbackJobs()).find((j: any) => j.payload.orderId === ref);
      assert.equal(job.status, 'succeeded');
      assert.equal(job.attempts, 3);
    } finally {
      await r.close();
      await setCallback('DEMO1', null);
    }
  });

  it('keeps retrying an unreachable receiver, and uses a corrected URL', async () => {
    const gone = await receiver();
    await gone.close();
    await setCallback('DEMO1', `${gone.url}/down`);
    const ref = await createOrder(t, orderBody(t, image));
    await startProduction(t, ref);
    for (let i = 0; i < 3; i++) {
      await t.s.worker.drain();
      t.clock.advance(300_000);
    }
    let job = (await callbackJobs()).find((j: any) => j.payload.orderId === ref);
    assert.equal(job.status, 'pending');
    assert.equal(job.attempts, 3);
    const r = await receiver();
    try {
      await setCallback('DEMO1', `${r.url}/up`);
      await t.s.worker.drain();
      assert.equal(r.hits.length, 1);
      assert.equal(r.hits[0].pathname, '/up');
      job = (await callbackJobs()).find((j: any) => j.payload.orderId === ref);
      assert.equal(job.status, 'succeeded');
    } finally {
      await r.close();
      await setCallback('DEMO1', null);
    }
  });

  it('records each attempt, and purges attempts after the retention of webhook deliveries', async () => {
    const r = await receiver([502]);
    const attempts = (ref: string) =>
      t.db.query<{ attempt: number; response_status: number | null; error: string | null }>(
        'SELECT attempt, response_status, error FROM callback_attempts WHERE order_id = $1 ORDER BY seq',
        [ref],
      );
    try {
      await setCallback('DEMO1', `${r.url}/kept`);
      const ref = await createOrder(t, orderBody(t, image));
      await startProduction(t, ref);
      await t.s.worker.drain();
      t.clock.advance(300_000);
      await t.s.worker.drain();
      assert.deepEqual(await attempts(ref), [
        { attempt: 1, response_status: 502, error: 'the callback URL answered HTTP 502' },
        { attempt: 2, response_status: 200, error: null },
      ]);
      t.clock.advance(29 * DAY);
      await ship(t, [ref]);
      await t.s.worker.drain();
      await scheduleMaintenance(t.s);
      await t.s.worker.drain();
      assert.equal((await attempts(ref)).length, 3, 'kept for 30 days');
      t.clock.advance(2 * DAY);
      await scheduleMaintenance(t.s);
      await t.s.worker.drain();
      assert.deepEqual(await attempts(ref), [{ attempt: 1, response_status: 200, error: null }]);
    } finally {
      await r.close();
      await setCallback('DEMO1', null);
    }
  });

  it('records a callback whose URL was removed before it ran as not sent', async () => {
    const r = await receiver();
    try {
      await setCallback('DEMO1', `${r.url}/removed`);
      const ref = await createOrder(t, orderBody(t, image));
      await startProduction(t, ref);
      await setCallback('DEMO1', null);
      await t.s.worker.drain();
      assert.equal(r.hits.length, 0);
      const rows = await t.db.query(
        'SELECT outcome, response_status, error FROM callback_attempts WHERE order_id = $1',
        [ref],
      );
      assert.deepEqual(rows, [
        { outcome: 'not_sent', response_status: null, error: 'the store had no callback URL any more' },
      ]);
    } finally {
      await r.close();
    }
  });

  it('sends nothing for a store without a callback URL', async () => {
    const before = (await callbackJobs()).length;
    const ref = await createOrder(t, orderBody(t, image));
    await startProduction(t, ref);
    await ship(t, [ref]);
    assert.equal((await callbackJobs()).length, before);
  });
});

import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isPrivateAddress } from '../../src/platform/http/targets.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createOrder, expectError, getOrder, orderBody, store, uploadImage } from '../orders/helpers.ts';

describe('fulfilment and callbacks in production', () => {
  let t: TestApp;
  let image: string;
  const hits: URL[] = [];
  let hang = false;
  const server = http.createServer((req, res) => {
    hits.push(new URL(req.url!, 'http://receiver'));
    if (hang) return; // never answers: the attempt times out
    res.end('ok');
  });
  let base = '';
  const setCallback = (url: string | null) =>
    t.s.organization.updateStore(t.seed.organizations[0].reference, store(t, 'DEMO1'), { callbackUrl: url });
  const callbackJob = async (orderId: string) =>
    (await operator(t, 'GET', '/jobs?kind=order.callback&limit=500')).data.jobs.find(
      (j: any) => j.payload.orderId === orderId,
    );

  before(async () => {
    t = await createTestApp({
      env: {
        APP_ENV: 'production',
        ALLOW_PRIVATE_TARGETS: 'true',
        CALLBACK_TIMEOUT_MS: '300',
        CALLBACK_RETRY_SECONDS: '60',
      },
    });
    image = await uploadImage(t);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await t.close();
  });

  it('has no test helpers', async () => {
    const ref = await createOrder(t, orderBody(t, image));
    expectError(await call(t, 'POST', `/v2/test-helpers/orders/${ref}/start-production`), 404, 'not_found');
    expectError(
      await call(t, 'POST', '/v2/test-helpers/shipments', { body: { shipment: { orderReferences: [ref] } } }),
      404,
      'not_found',
    );
  });

  it('fulfils through the operator API with the real carrier and tracking number', async () => {
    await setCallback(`${base}/cb?environment=test`);
    const ref = await createOrder(t, orderBody(t, image, { dropshipMinimalShippingLevel: 'tracked' }));
    assert.equal((await operator(t, 'POST', `/orders/${ref}/start-production`)).statusCode, 204);
    assert.equal((await operator(t, 'POST', `/orders/${ref}/start-production`)).statusCode, 409);
    const shipped = await operator(t, 'POST', '/shipments', {
      orderReferences: [ref],
      carrier: 'UPS',
      trackingNumber: '1Z999AA10123456784',
    });
    assert.equal(shipped.statusCode, 200, shipped.body);
    const s = (await call(t, 'GET', `/v2/shipments/${shipped.data.shipment.reference}`)).data.shipment;
    assert.equal(s.carrier, 'UPS');
    assert.equal(s.trackingNumber, '1Z999AA10123456784');
    assert.equal((await getOrder(t, ref)).status.code, 'shipped');
    assert.equal((await operator(t, 'POST', '/shipments', { orderReferences: ['Order_x'] })).statusCode, 400);
    const unauthorized = await call(t, 'POST', '/operator/shipments', { key: null, body: { orderReferences: [ref] } });
    assert.equal(unauthorized.statusCode, 401);
    await t.s.worker.drain();
    const last = hits[hits.length - 1];
    assert.equal(last.searchParams.get('environment'), 'prod');
    assert.equal(last.searchParams.get('order_reference_v2'), ref);
  });

  it('treats a time-out as a failed attempt and retries', async () => {
    hang = true;
    await setCallback(`${base}/slow`);
    const ref = await createOrder(t, orderBody(t, image));
    await operator(t, 'POST', `/orders/${ref}/start-production`);
    await t.s.worker.drain();
    let job = await callbackJob(ref);
    assert.equal(job.status, 'pending');
    assert.match(job.lastError, /timed out/);
    hang = false;
    t.clock.advance(60_000);
    await t.s.worker.drain();
    job = await callbackJob(ref);
    assert.equal(job.status, 'succeeded');
    assert.equal(job.attempts, 2);
  });

  it('refuses a callback host that resolves to a private address when private targets are off', async (ctx) => {
    const name = hostname();
    const resolved = await lookup(name).catch(() => null);
    if (!resolved || !isPrivateAddress(resolved.address)) {
      ctx.skip(`${name} does not resolve to a private address here`);
      return;
    }
    const strict = await createTestApp({ env: { APP_ENV: 'production', ALLOW_PRIVATE_TARGETS: 'false' } });
    try {
      const port = (server.address() as AddressInfo).port;
      const before = hits.length;
      await strict.s.organization.updateStore(strict.seed.organizations[0].reference, store(strict, 'DEMO1'), {
        callbackUrl: `http://${name}:${port}/private`,
      });
      const img = await uploadImage(strict);
      const ref = await createOrder(strict, orderBody(strict, img));
      await operator(strict, 'POST', `/orders/${ref}/start-production`);
      await strict.s.worker.drain();
      const job = (await operator(strict, 'GET', '/jobs?kind=order.callback')).data.jobs.find(
        (j: any) => j.payload.orderId === ref,
      );
      assert.equal(job.status, 'pending');
      assert.match(job.lastError, /private/);
      assert.equal(hits.length, before, 'nothing reached the private address');
    } finally {
      await strict.close();
    }
  });
});

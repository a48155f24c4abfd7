import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import { createOrder, orderBody, startProduction, store, uploadImage } from '../orders/helpers.ts';
import { signedIn, textOf } from '../dashboard/helpers.ts';

describe('legacy order-updated callback: the cap on its retries', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { CALLBACK_RETRY_SECONDS: '300', CALLBACK_MAX_ATTEMPTS: '3' } });
  });
  after(() => t.close());

  it('gives up after CALLBACK_MAX_ATTEMPTS, and the order page shows it with the last error', async () => {
    // A port that refuses: nothing listens on it any more.
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const org = t.seed.organizations[0].reference;
    await t.s.organization.updateStore(org, store(t, 'DEMO1'), { callbackUrl: `http://127.0.0.1:${port}/down` });
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    await startProduction(t, ref);
    for (let i = 0; i < 6; i++) {
      await t.s.worker.drain();
      t.clock.advance(300_000);
    }
    const jobs = (await operator(t, 'GET', '/jobs?kind=order.callback&limit=500')).data.jobs;
    const job = jobs.find((j: any) => j.payload.orderId === ref);
    assert.equal(job.status, 'dead');
    assert.equal(job.attempts, 3, 'three attempts, then no more');
    assert.match(job.lastError ?? job.last_error, /could not connect/);

    const partner = await signedIn(t);
    const page = textOf((await partner.get(`/dashboard/orders/${ref}`)).body);
    assert.match(page, /Callback to the store given up 3 attempts; last error: could not connect to the callback URL/);
    await t.s.organization.updateStore(org, store(t, 'DEMO1'), { callbackUrl: null });
  });
});

import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createOrder, getOrder, orderBody, startProduction, store, uploadImage } from '../orders/helpers.ts';
import { signedIn, textOf } from '../dashboard/helpers.ts';

describe('integrators', () => {
  let t: TestApp;
  const org = () => t.seed.organizations[0].reference;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('an operator registers an integrator with its own code, once', async () => {
    const res = await operator(t, 'POST', '/integrators', { code: 'SHOPAPP', name: 'Shop App Ltd' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.data.integrator.reference, /^Integrator_/);
    const again = await operator(t, 'POST', '/integrators', { code: 'SHOPAPP', name: 'Someone else' });
    assert.equal(again.statusCode, 409);
    assert.equal(again.data.code, 'integrator_code_in_use');
    const bad = await operator(t, 'POST', '/integrators', { code: 'no spaces', name: 'x' });
    assert.equal(bad.statusCode, 400);
    const list = await operator(t, 'GET', '/integrators');
    assert.deepEqual(
      list.data.integrators.map((i: any) => i.code),
      ['SHOPAPP'],
    );
    const unknown = await operator(t, 'POST', `/organizations/${org()}/api-keys`, { name: 'x', integrator: 'NOPE' });
    assert.equal(unknown.statusCode, 400, unknown.body);
  });

  it('orders created with a key issued through it carry its code, in the order and the legacy callback', async () => {
    const key = await operator(t, 'POST', `/organizations/${org()}/api-keys`, {
      name: 'via shop app',
      integrator: 'SHOPAPP',
    });
    assert.equal(key.statusCode, 200, key.body);
    assert.match(key.data.apiKey.integratorReference, /^Integrator_/);
    const secret = key.data.apiKey.secret;

    const hits: URL[] = [];
    const server = http.createServer((req, res) => {
      hits.push(new URL(req.url!, 'http://receiver'));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
      await t.s.organization.updateStore(org(), store(t, 'DEMO1'), { callbackUrl: url });
      const image = await uploadImage(t, secret);
      const via = await createOrder(t, orderBody(t, image), secret);
      const direct = await createOrder(t, orderBody(t, image));
      assert.equal((await getOrder(t, via)).viaStoreCode, 'SHOPAPP');
      assert.equal((await getOrder(t, direct)).viaStoreCode, null);
      const partner = await signedIn(t);
      const shown = textOf((await partner.request('GET', `/dashboard/orders/${via}`)).body);
      assert.match(shown, /Created through integrator SHOPAPP/);
      await startProduction(t, via);
      await t.s.worker.drain();
      const hit = hits.find((h) => h.searchParams.get('order_reference_v2') === via);
      assert.ok(hit, 'the callback of the order');
      assert.equal(hit.searchParams.get('via_store_code'), 'SHOPAPP');
      assert.equal(hit.searchParams.get('via_partner_code'), 'SHOPAPP');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      await t.s.organization.updateStore(org(), store(t, 'DEMO1'), { callbackUrl: null });
    }
    // A read of the order list shows it too.
    const list = await call(t, 'GET', '/v2/orders?limit=5');
    assert.ok(list.data.orders.some((o: any) => o.viaStoreCode === 'SHOPAPP'));
  });
});

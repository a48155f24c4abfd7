import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dashboardPostPaths } from '../../src/modules/dashboard/routes.ts';
import { createOrder, orderBody, product, store, uploadImage } from '../orders/helpers.ts';
import { createRender, seeded } from '../rendering/helpers.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { Agent, OPERATOR_USER, OTHER_PARTNER, csrfOf, signedIn, textOf } from './helpers.ts';

describe('dashboard CSRF protection and organization isolation', () => {
  let t: TestApp;
  let partner: Agent;
  let other: Agent;
  let op: Agent;
  before(async () => {
    t = await createTestApp();
    partner = await signedIn(t);
    other = await signedIn(t, OTHER_PARTNER);
    op = await signedIn(t, OPERATOR_USER, 'console');
  });
  after(() => t.close());

  it('refuses every state-changing POST without a valid token, with a 403 page', async () => {
    const paths = dashboardPostPaths.get(t.s)!;
    assert.ok(paths.length >= 25, `all POST routes registered (${paths.length})`);
    const org = t.seed.organizations[0];
    const fill = (p: string) =>
      p
        .replace(':org', org.reference)
        .replace(
          ':ref',
          p.includes('/jobs/')
            ? '1'
            : p.includes('/api-keys/')
              ? 'Apikey_0000000000000000000000000'
              : org.stores[0].reference,
        );
    const stateBefore = await t.db.query(
      'SELECT (SELECT count(*) FROM stores) s, (SELECT count(*) FROM brands) b, (SELECT count(*) FROM api_keys WHERE revoked_at IS NULL) k, (SELECT count(*) FROM dashboard_sessions) ss, (SELECT count(*) FROM organizations) o',
    );
    for (const path of paths) {
      const url = fill(path);
      const isPublic = path.endsWith('/sign-in') || path === '/dashboard/invitation';
      const owner = path.startsWith('/console') ? op : partner;
      const stranger = path.startsWith('/console') ? partner : other;
      const agent = isPublic ? new Agent(t) : owner;
      const missing = await agent.post(url, {
        name: 'x',
        email: 'x@example.com',
        password: 'whatever-password',
        code: 'ZZZ1',
      });
      assert.equal(missing.statusCode, 403, `${url} without a token`);
      assert.match(missing.body, /security token/, url);
      assert.match(missing.headers['content-type'] as string, /text\/html/);
      const wrong = await agent.post(url, { _csrf: 'x'.repeat(43), name: 'x' });
      assert.equal(wrong.statusCode, 403, `${url} with a wrong token`);
      if (!isPublic) {
        // The token of another signed-in user does not work with this user's cookie.
        const foreign = csrfOf((await stranger.get(stranger === op ? '/console' : '/dashboard')).body);
        assert.ok(foreign);
        assert.equal(
          (await agent.post(url, { _csrf: foreign, name: 'x' })).statusCode,
          403,
          `${url} with another session's token`,
        );
      }
    }
    const stateAfter = await t.db.query(
      'SELECT (SELECT count(*) FROM stores) s, (SELECT count(*) FROM brands) b, (SELECT count(*) FROM api_keys WHERE revoked_at IS NULL) k, (SELECT count(*) FROM dashboard_sessions) ss, (SELECT count(*) FROM organizations) o',
    );
    assert.deepEqual(stateAfter, stateBefore, 'nothing changed');
    assert.equal((await partner.get('/dashboard')).statusCode, 200, 'sign-out without a token did not sign out');
  });

  it('refuses a POST with only the sign-in form token and no session', async () => {
    const a = new Agent(t);
    const page = await a.get('/dashboard/sign-in');
    const res = await a.post('/dashboard/stores', { _csrf: csrfOf(page.body), name: 'x' });
    assert.equal(res.statusCode, 403, 'the login token is not a session token');
  });

  it('never shows a partner another organization’s data', async () => {
    const mine = t.seed.organizations[0];
    const theirs = t.seed.organizations[1];
    const image = await uploadImage(t, t.otherKey);
    const theirOrder = await createOrder(
      t,
      orderBody(t, image, {
        storeReference: store(t, 'OTHER1'),
        orderlines: [{ productReference: product(t, 'iPhone 15 Clear Case', 1), imageReference: image, quantity: 1 }],
      }),
      t.otherKey,
    );
    const theirKey = (await call(t, 'GET', '/v2/organization', { key: t.otherKey })).statusCode;
    assert.equal(theirKey, 200);
    const rx = await other.submit(
      '/dashboard/webhooks',
      { url: 'https://hooks.other.example/x', eventTypes: 'order.created' },
      '/dashboard/webhooks',
    );
    assert.equal(rx.statusCode, 200);
    const theirEndpoint = (await call(t, 'GET', '/v2/webhook-endpoints', { key: t.otherKey })).data.webhookEndpoints[0]
      .reference;
    const theirKeys = (await other.get('/dashboard/api-keys')).body;
    const theirKeyRef = /data-copy-value="(Apikey_[0-9a-z]{26})"/.exec(theirKeys)![1];

    const forbiddenText = [
      theirs.name,
      theirs.stores[0].code,
      theirs.stores[0].reference,
      theirs.brands[0].reference,
      theirs.accounts[0].reference,
      theirOrder,
      theirEndpoint,
      theirKeyRef,
      'partner@other-prints.example',
      'hooks.other.example',
    ];
    for (const url of [
      '/dashboard',
      '/dashboard/accounts',
      '/dashboard/stores',
      '/dashboard/brands',
      '/dashboard/api-keys',
      '/dashboard/webhooks',
      '/dashboard/webhooks/deliveries',
      '/dashboard/events',
      '/dashboard/orders',
      '/dashboard/claims',
      '/dashboard/renders',
      '/dashboard/usage',
      '/dashboard/users',
      `/dashboard/orders?store=${theirs.stores[0].reference}`,
    ]) {
      const res = await partner.get(url);
      assert.equal(res.statusCode, 200, url);
      for (const s of forbiddenText) assert.ok(!res.body.includes(s), `${url} shows ${s}`);
    }
    assert.match(textOf((await partner.get('/dashboard')).body), new RegExp(mine.name));
    for (const url of [
      `/dashboard/stores/${theirs.stores[0].reference}`,
      `/dashboard/brands/${theirs.brands[0].reference}`,
      `/dashboard/orders/${theirOrder}`,
      `/dashboard/webhooks/${theirEndpoint}`,
      `/dashboard/claims/Claim_${'0'.repeat(26)}`,
      `/dashboard/renders/Render_${'0'.repeat(26)}/thumbnail`,
    ]) {
      const res = await partner.get(url);
      assert.equal(res.statusCode, 404, url);
      assert.match(res.headers['content-type'] as string, /text\/html/);
    }
    const before = (await call(t, 'GET', `/v2/stores/${theirs.stores[0].reference}`, { key: t.otherKey })).data.store;
    const edit = await partner.submit(`/dashboard/stores/${theirs.stores[0].reference}`, {
      name: 'hijacked',
      integration: 'api',
    });
    assert.equal(edit.statusCode, 404);
    assert.deepEqual(
      (await call(t, 'GET', `/v2/stores/${theirs.stores[0].reference}`, { key: t.otherKey })).data.store,
      before,
    );
    assert.equal(
      (await partner.submit(`/dashboard/brands/${theirs.brands[0].reference}`, { name: 'hijacked' })).statusCode,
      404,
    );
    assert.equal(
      (
        await partner.submit(`/dashboard/accounts/${theirs.accounts[0].reference}`, {
          name: 'hijacked',
          legalEntityName: 'x',
          'billingAddress.city': 'x',
        })
      ).statusCode,
      404,
    );
    assert.equal((await partner.submit(`/dashboard/api-keys/${theirKeyRef}/revoke`, {})).statusCode, 404);
    assert.equal(
      (await call(t, 'GET', '/v2/organization', { key: t.otherKey })).statusCode,
      200,
      'their key still works',
    );
    assert.equal((await partner.submit(`/dashboard/webhooks/${theirEndpoint}/delete`, {})).statusCode, 404);
    assert.equal((await partner.submit(`/dashboard/webhooks/${theirEndpoint}/test`, {})).statusCode, 404);
    assert.equal((await partner.submit(`/dashboard/orders/${theirOrder}/start-production`, {})).statusCode, 404);
    assert.equal(
      (await call(t, 'GET', `/v2/orders/${theirOrder}`, { key: t.otherKey })).data.order.status.code,
      'pending',
    );
    const foreignAccount = await partner.submit('/dashboard/stores', {
      name: 'x',
      code: 'XX99',
      integration: 'api',
      accountReference: theirs.accounts[0].reference,
    });
    assert.equal(foreignAccount.statusCode, 400, 'an account of another organization cannot be used');
  });

  it('serves a partner no picture of another organization: 404 as for an unknown reference', async () => {
    const theirs = t.seed.organizations[1].reference;
    const [priv] = await t.db.query<{ id: string; filename: string }>(
      `SELECT p.id, m.filename FROM products p JOIN productgroups g ON g.id = p.productgroup_id
         JOIN product_media m ON m.product_id = p.id
        WHERE g.private_organization_id = $1 AND p.device_key IS NOT NULL ORDER BY p.seq, m.position LIMIT 1`,
      [theirs],
    );
    assert.ok(priv, 'a private device product with pictures of the other organization in the demo catalog');
    const image = await uploadImage(t, t.otherKey);
    const pending = await createRender(t, seeded(t).cStudioIp15, image, t.otherKey);
    assert.equal(pending.statusCode, 200, pending.body);
    const unknown = (prefix: string) => `${prefix}_${'7'.repeat(26)}`;
    // Each picture route with their resource and with an unknown one of the same kind.
    const routes = (render: string) => [
      [`/dashboard/products/${priv.id}/picture.svg`, `/dashboard/products/${unknown('Product')}/picture.svg`],
      [
        `/dashboard/products/${priv.id}/media/${priv.filename}`,
        `/dashboard/products/${unknown('Product')}/media/${priv.filename}`,
      ],
      [`/dashboard/images/${image}/thumbnail`, `/dashboard/images/${unknown('Image')}/thumbnail`],
      [`/dashboard/renders/${render}/thumbnail`, `/dashboard/renders/${unknown('Render')}/thumbnail`],
      [`/dashboard/renders/${render}/media`, `/dashboard/renders/${unknown('Render')}/media`],
      [`/dashboard/products/${priv.id}`, `/dashboard/products/${unknown('Product')}`],
    ];
    const judge = async (theirsUrl: string, unknownUrl: string, ref: string) => {
      const mine = await partner.get(theirsUrl);
      const none = await partner.get(unknownUrl);
      assert.equal(mine.statusCode, 404, theirsUrl);
      assert.equal(none.statusCode, 404, unknownUrl);
      assert.equal(mine.headers['content-type'], none.headers['content-type'], theirsUrl);
      const text = (body: string, r: string) => textOf(body).replaceAll(r, 'REF');
      assert.equal(text(mine.body, ref), text(none.body, unknownUrl.split('/')[3]), `${theirsUrl}: the same page`);
    };
    const renderRef = pending.data.render.reference;
    // A render still pending is not "not finished yet" to a stranger: it does not exist for them.
    const [, , , [pendingUrl, pendingUnknown]] = routes(renderRef);
    await judge(pendingUrl, pendingUnknown, renderRef);
    await t.s.worker.drain();
    for (const [theirsUrl, unknownUrl] of routes(renderRef)) {
      assert.equal((await other.get(theirsUrl)).statusCode, 200, `${theirsUrl} is theirs to see`);
      await judge(theirsUrl, unknownUrl, theirsUrl.split('/')[3]);
    }
  });

  it('keeps a partner out of the console, also for state changes', async () => {
    const csrf = csrfOf((await partner.get('/dashboard')).body);
    for (const url of [
      '/console/organizations',
      `/console/organizations/${t.seed.organizations[1].reference}/users`,
      '/console/jobs/1/retry',
    ]) {
      const res = await partner.post(url, {
        _csrf: csrf,
        name: 'x',
        email: 'evil@example.com',
        password: 'whatever-password',
      });
      assert.equal(res.statusCode, 403, url);
    }
    assert.equal(
      (await t.db.query("SELECT count(*)::int AS n FROM dashboard_users WHERE email = 'evil@example.com'"))[0].n,
      0,
    );
  });
});

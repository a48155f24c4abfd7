import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import { createRender, seeded, uploadSolid } from '../rendering/helpers.ts';
import { Agent, type Form, PARTNER, csrfOf, signedIn, textOf } from './helpers.ts';
import { ADDRESS, acceptInvitation, inviteLink, postLogo } from './partner-support.ts';

describe('partner dashboard pages', () => {
  let t: TestApp;
  let a: Agent;
  before(async () => {
    t = await createTestApp();
    a = await signedIn(t);
  });
  after(() => t.close());

  const org = () => t.seed.organizations[0];
  const apiStores = async () => (await call(t, 'GET', '/v2/stores?limit=100')).data.stores as any[];

  it('creates a store, refusing bad input with the message and the typed values kept', async () => {
    const form: Form = {
      name: 'Web <shop>',
      code: 'WEB1',
      integration: 'api',
      accountReference: org().accounts[0].reference,
      defaultBrandReference: org().brands[0].reference,
      callbackUrl: '',
      ...ADDRESS,
    };
    const create = (f: Form) => a.submit('/dashboard/stores', f, '/dashboard/stores');
    const bad = await create({ ...form, code: 'no spaces!' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /role="alert">Store code: 2–20 letters or digits/);
    assert.match(bad.body, /value="Web &lt;shop&gt;"/, 'typed name kept, escaped');
    const badUrl = await create({ ...form, callbackUrl: 'ftp://example.com/x' });
    assert.equal(badUrl.statusCode, 400);
    assert.match(textOf(badUrl.body), /callbackUrl/);
    const foreignAccount = await create({ ...form, accountReference: t.seed.organizations[1].accounts[0].reference });
    assert.equal(foreignAccount.statusCode, 400);
    const ok = await create(form);
    assert.equal(ok.statusCode, 303, ok.body);
    const created = (await apiStores()).find((s) => s.code === 'WEB1');
    assert.equal(created.name, 'Web <shop>');
    assert.equal(created.combinedAddress.countryCode, 'NL');
    assert.equal(created.defaultBrandReference, org().brands[0].reference);
    assert.equal(ok.headers.location, `/dashboard/stores/${created.reference}`);
    const detail = await a.get(ok.headers.location as string);
    assert.match(detail.body, /Store Web &lt;shop&gt; created/);
    assert.doesNotMatch(detail.body, /<shop>/, 'never unescaped');
    const again = await create(form);
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /Store code WEB1 is already in use/);
  });

  it('renames a store and sets its callback URL, integration and default brand', async () => {
    const store = org().stores[0].reference;
    const edit = (form: Form) =>
      a.submit(`/dashboard/stores/${store}`, { ...form, ...ADDRESS }, `/dashboard/stores/${store}`);
    const res = await edit({
      name: 'Renamed',
      integration: 'shopify',
      defaultBrandReference: '',
      callbackUrl: 'https://shop.example/cb?x=1',
    });
    assert.equal(res.statusCode, 303, res.body);
    const s = (await call(t, 'GET', `/v2/stores/${store}`)).data.store;
    assert.equal(s.name, 'Renamed');
    assert.equal(s.integration, 'shopify');
    assert.equal(s.defaultBrandReference, null);
    assert.equal(s.callbackUrl, 'https://shop.example/cb?x=1');
    await edit({
      name: 'CaseCraft API store',
      integration: 'api',
      defaultBrandReference: org().brands[0].reference,
      callbackUrl: '',
    });
    assert.equal((await call(t, 'GET', `/v2/stores/${store}`)).data.store.callbackUrl, null);
  });

  it('edits an account; payment terms and balance are read-only', async () => {
    const acc = org().accounts[0].reference;
    const page = await a.get('/dashboard/accounts');
    assert.match(textOf(page.body), /Payment terms 14 days/);
    const res = await a.submit(
      `/dashboard/accounts/${acc}`,
      {
        name: 'Benelux',
        legalEntityName: 'Demo Cases B.V.',
        vatNumber: 'NL123456782B01',
        'billingAddress.company': 'Demo',
        'billingAddress.city': 'Utrecht',
        'billingAddress.countryCode': 'NL',
        paymentTermDays: '99',
      },
      '/dashboard/accounts',
    );
    assert.equal(res.statusCode, 303, res.body);
    const a2 = (await call(t, 'GET', `/v2/accounts/${acc}`)).data.account;
    assert.equal(a2.name, 'Benelux');
    assert.equal(a2.billingAddress.city, 'Utrecht');
    assert.equal(a2.legalEntity.vatNumber, 'NL123456782B01', 'the tax details as they were');
    assert.equal(a2.paymentTermDays, 14, 'not changeable here');
    const bad = await a.submit(
      `/dashboard/accounts/${acc}`,
      { name: '', legalEntityName: 'x', 'billingAddress.city': 'X' },
      '/dashboard/accounts',
    );
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Account name is required/);
  });

  it('creates and edits a brand with colours, contact and a live preview, and uploads a logo', async () => {
    const page = await a.get('/dashboard/brands');
    assert.match(page.body, /data-preview/);
    const bad = await a.submit('/dashboard/brands', { name: 'Neon', primaryColor: 'red' }, '/dashboard/brands');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Primary colour must be a colour like/);
    const res = await a.submit(
      '/dashboard/brands',
      {
        name: 'Neon',
        primaryColor: '#FF00AA',
        secondaryColor: '#101010',
        customerServiceEmail: 'help@neon.example',
        customerServiceUrl: 'https://neon.example/help',
      },
      '/dashboard/brands',
    );
    assert.equal(res.statusCode, 303, res.body);
    const ref = String(res.headers.location).split('/').pop()!;
    let brand = (await call(t, 'GET', `/v2/brands/${ref}`)).data.brand;
    assert.equal(brand.primaryColor, '#ff00aa');
    assert.equal(brand.customerService.email, 'help@neon.example');
    const upd = await a.submit(
      `/dashboard/brands/${ref}`,
      { name: 'Neon 2', primaryColor: '#00ff00', secondaryColor: '#ffffff', customerServicePhone: '+31 20 1234567' },
      `/dashboard/brands/${ref}`,
    );
    assert.equal(upd.statusCode, 303);
    brand = (await call(t, 'GET', `/v2/brands/${ref}`)).data.brand;
    assert.equal(brand.name, 'Neon 2');
    assert.equal(brand.customerService.phonenumber, '+31 20 1234567');
    assert.equal(brand.customerService.email, null);

    const csrf = csrfOf((await a.get(`/dashboard/brands/${ref}`)).body);
    const png = await sharp({ create: { width: 900, height: 300, channels: 4, background: '#336699' } })
      .png()
      .toBuffer();
    const logoPng = { filename: 'logo.png', contentType: 'image/png', data: png };
    const uploaded = await postLogo(a, ref, { _csrf: csrf }, logoPng);
    assert.equal(uploaded.statusCode, 303, uploaded.body);
    brand = (await call(t, 'GET', `/v2/brands/${ref}`)).data.brand;
    assert.match(brand.logoUrl, /\/brand-logos\/[0-9a-z]{26}\.png$/);
    const logo = await t.app.inject({ method: 'GET', url: new URL(brand.logoUrl).pathname });
    assert.equal(logo.statusCode, 200);
    assert.equal(logo.headers['content-type'], 'image/png');
    assert.equal((await sharp(logo.rawPayload).metadata()).width, 512, 'scaled to 512 px');
    const own = new URL(brand.logoUrl).pathname;
    assert.ok((await a.get(`/dashboard/brands/${ref}`)).body.includes(`<img src="${own}"`), 'shown from this origin');
    await t.s.db.query('UPDATE brands SET logo_url = $2 WHERE id = $1', [ref, 'https://cdn.example/logo.png']);
    const external = (await a.get(`/dashboard/brands/${ref}`)).body;
    assert.doesNotMatch(external, /<img src="https:\/\/cdn\.example/, 'a logo elsewhere is never loaded');
    assert.match(external, /<a href="https:\/\/cdn\.example\/logo\.png" rel="noreferrer">external logo<\/a>/);
    await t.s.db.query('UPDATE brands SET logo_url = $2 WHERE id = $1', [ref, brand.logoUrl]);
    const refused = await postLogo(
      a,
      ref,
      { _csrf: csrf },
      { filename: 'x.svg', contentType: 'image/svg+xml', data: Buffer.from('<svg onload="alert(1)"></svg>') },
    );
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /PNG, JPEG, WebP or GIF/);
    assert.equal((await postLogo(a, ref, {}, logoPng)).statusCode, 403);
    assert.equal((await t.app.inject({ method: 'GET', url: '/brand-logos/nope.png' })).statusCode, 404);
    const big = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#123456' } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    assert.ok(
      big.length > 1024 * 1024 && big.length < 2 * 1024 * 1024,
      `a logo above the JSON body limit (${big.length})`,
    );
    const bigLogo = { filename: 'big.png', contentType: 'image/png', data: big };
    assert.equal((await postLogo(a, ref, { _csrf: csrf }, bigLogo)).statusCode, 303);
    const huge = { filename: 'huge.png', contentType: 'image/png', data: Buffer.alloc(2 * 1024 * 1024 + 100 * 1024) };
    const tooBig = await postLogo(a, ref, { _csrf: csrf }, huge);
    assert.equal(tooBig.statusCode, 413);
    assert.match(tooBig.headers['content-type'] as string, /text\/html/);
  });

  it('creates an API key that the API accepts, shows the secret once, and revokes it at once', async () => {
    const res = await a.submit('/dashboard/api-keys', { name: 'backend', access: 'read_only' }, '/dashboard/api-keys');
    assert.equal(res.statusCode, 200);
    const secret = /<code id="api-key-secret">(sk_test_[^<]+)<\/code>/.exec(res.body)?.[1];
    assert.ok(secret, 'secret shown');
    assert.match(res.body, /data-copy="api-key-secret"/);
    assert.equal((await call(t, 'GET', '/v2/organization', { key: secret })).statusCode, 200);
    assert.equal(
      (
        await call(t, 'POST', '/v2/webhook-endpoints', {
          key: secret,
          body: { webhookEndpoint: { url: 'https://x.example', eventTypes: ['order.created'] } },
        })
      ).statusCode,
      403,
      'read-only',
    );
    const list = await a.get('/dashboard/api-keys');
    assert.ok(!list.body.includes(secret), 'never shown again');
    const ref = /data-copy-value="(Apikey_[0-9a-z]{26})"/.exec(list.body.slice(list.body.indexOf('backend')))?.[1];
    assert.ok(ref);
    const revoked = await a.submit(`/dashboard/api-keys/${ref}/revoke`, {}, '/dashboard/api-keys');
    assert.equal(revoked.statusCode, 303);
    const refusedNow = await call(t, 'GET', '/v2/organization', { key: secret });
    assert.equal(refusedNow.statusCode, 401);
    assert.match((await a.get('/dashboard/api-keys')).body, /Key backend revoked/);
    const bad = await a.submit('/dashboard/api-keys', { name: '', access: 'full' }, '/dashboard/api-keys');
    assert.equal(bad.statusCode, 400);
    const badAccess = await a.submit('/dashboard/api-keys', { name: 'x', access: 'admin' }, '/dashboard/api-keys');
    assert.equal(badAccess.statusCode, 400);
  });

  it('manages webhook endpoints: create, test, delivery log, resend, disable, rotate, edit, delete', async () => {
    const rx = await startReceiver();
    try {
      const created = await a.submit(
        '/dashboard/webhooks',
        { url: rx.url, description: 'main', eventTypes: ['order.created', 'order.shipped'] },
        '/dashboard/webhooks',
      );
      assert.equal(created.statusCode, 200, created.body);
      assert.match(created.body, /<code id="webhook-secret">whsec_/);
      const ep = (await call(t, 'GET', '/v2/webhook-endpoints')).data.webhookEndpoints[0];
      assert.deepEqual(ep.eventTypes, ['order.created', 'order.shipped']);
      // The endpoint's page and its forms (`act('')` sends the edit form itself).
      const page = `/dashboard/webhooks/${ep.reference}`;
      const act = (what: string, form: Form = {}) => a.submit(what ? `${page}/${what}` : page, form, page);
      const endpoint = async () => (await call(t, 'GET', `/v2/webhook-endpoints/${ep.reference}`)).data.webhookEndpoint;
      const tested = await act('test');
      assert.equal(tested.statusCode, 303);
      assert.equal(rx.received.length, 1);
      const detail = await a.get(page);
      assert.match(detail.body, /Test event sent: succeeded \(response 204\)/);
      assert.match(textOf(detail.body), /ping .* succeeded/);
      const log = await a.get('/dashboard/webhooks/deliveries');
      const delivery = /data-copy-value="(Delivery_[0-9a-z]{26})"/.exec(log.body)?.[1];
      assert.ok(delivery);
      const resend = () =>
        a.submit(`/dashboard/webhooks/deliveries/${delivery}/resend`, {}, '/dashboard/webhooks/deliveries');
      const resent = await resend();
      assert.equal(resent.statusCode, 303);
      assert.equal((await call(t, 'GET', '/v2/webhook-deliveries')).data.webhookDeliveries.length, 2);
      assert.equal((await act('disable')).statusCode, 303);
      assert.equal((await endpoint()).enabled, false);
      const resendDisabled = await resend();
      assert.equal(resendDisabled.statusCode, 409);
      assert.match(resendDisabled.body, /is disabled/);
      assert.equal((await act('enable')).statusCode, 303);
      const rotated = await act('rotate-secret');
      assert.match(rotated.body, /<code id="webhook-secret">whsec_/);
      const noTypes = await act('', { url: rx.url });
      assert.equal(noTypes.statusCode, 400);
      assert.match(noTypes.body, /at least one event type/);
      const edited = await act('', { url: rx.url, eventTypes: 'claim.updated', description: '' });
      assert.equal(edited.statusCode, 303);
      assert.deepEqual((await endpoint()).eventTypes, ['claim.updated']);
      const events = await a.get('/dashboard/events');
      assert.match(events.body, /ping/);
      assert.equal((await act('delete')).statusCode, 303);
      assert.equal((await a.get(page)).statusCode, 404);
    } finally {
      await rx.close();
    }
  });

  it('invites a colleague with a one-time link to set a password', async () => {
    const res = await a.submit(
      '/dashboard/users/invite',
      { email: 'colleague@demo-cases.example' },
      '/dashboard/users',
    );
    assert.equal(res.statusCode, 200);
    const link = inviteLink(res.body);
    assert.ok(link);
    const path = new URL(link.replace(/&amp;/g, '&')).pathname + new URL(link).search;
    const b = new Agent(t);
    const form = await b.get(path);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /colleague@demo-cases.example/);
    const token = new URL(link).searchParams.get('token')!;
    const mismatch = await acceptInvitation(b, form.body, token, 'long-enough-pw', 'other-password');
    assert.equal(mismatch.statusCode, 400);
    const short = await acceptInvitation(b, form.body, token, 'short');
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /at least 10 characters/);
    const ok = await acceptInvitation(b, form.body, token, 'long-enough-pw');
    assert.equal(ok.statusCode, 303);
    assert.match(textOf((await b.get('/dashboard')).body), /colleague@demo-cases.example · Demo Cases Co/);
    assert.equal((await new Agent(t).get(path)).statusCode, 404, 'used once');
    const c = new Agent(t);
    await c.signIn({ email: 'colleague@demo-cases.example', password: 'long-enough-pw' });
    const users = await a.get('/dashboard/users');
    assert.match(textOf(users.body), /colleague@demo-cases.example active/);
    const dup = await a.submit(
      '/dashboard/users/invite',
      { email: 'colleague@demo-cases.example' },
      '/dashboard/users',
    );
    assert.equal(dup.statusCode, 409);
  });

  it("answers the same for another organization's user or an operator as for a new address", async () => {
    for (const email of ['partner@other-prints.example', 'operator@pod-service.example', 'nobody-yet@example.com']) {
      const res = await a.submit('/dashboard/users/invite', { email }, '/dashboard/users');
      assert.equal(res.statusCode, 200, email);
      assert.match(res.body, /Invitation created/);
      assert.ok(inviteLink(res.body), email);
    }
    // The link for a foreign account leads nowhere.
    const res = await a.submit(
      '/dashboard/users/invite',
      { email: 'operator@pod-service.example' },
      '/dashboard/users',
    );
    const token = new URL(inviteLink(res.body)!.replace(/&amp;/g, '&')).searchParams.get('token')!;
    const b = new Agent(t);
    const form = await b.get(`/dashboard/invitation?token=${token}`);
    const taken = await acceptInvitation(b, form.body, token, 'long-enough-pw');
    assert.equal(taken.statusCode, 404);
  });

  it('shows usage: rendertokens and each rate-limit bucket', async () => {
    const res = await a.get('/dashboard/usage');
    assert.equal(res.statusCode, 200);
    const text = textOf(res.body);
    assert.match(text, /0 of 1000 used this week/);
    for (const b of ['default', 'uploads', 'downloads']) assert.match(text, new RegExp(`${b} \\d+`));
  });

  it('lists finished renders with thumbnails, finds one by reference, and counts rendertokens', async () => {
    const image = await uploadSolid(t, { r: 200, g: 30, b: 30 });
    const res = await createRender(t, seeded(t).cStudioIp15, image);
    assert.equal(res.statusCode, 200, res.body);
    const ref = res.data.render.reference;
    const pending = await a.get(`/dashboard/renders?reference=${ref}`);
    assert.match(textOf(pending.body), /pending/);
    await t.s.worker.drain();
    const page = await a.get('/dashboard/renders');
    assert.match(page.body, new RegExp(`<img src="/dashboard/renders/${ref}/thumbnail"`));
    assert.doesNotMatch(textOf(page.body), / 0 of 1000 used/);
    const thumb = await a.get(`/dashboard/renders/${ref}/thumbnail`);
    assert.equal(thumb.statusCode, 200);
    assert.match(thumb.headers['content-type'] as string, /^image\//);
    assert.ok((await sharp(thumb.rawPayload).metadata()).width! > 0);
    // The render itself, larger than its thumbnail, on the render's own page.
    const one = await a.get(`/dashboard/renders?reference=${ref}`);
    assert.match(one.body, new RegExp(`<img class="render-full" src="/dashboard/renders/${ref}/media"`));
    const media = await a.get(`/dashboard/renders/${ref}/media`);
    assert.equal(media.statusCode, 200);
    assert.ok((await sharp(media.rawPayload).metadata()).width! > (await sharp(thumb.rawPayload).metadata()).width!);
    assert.equal(
      (await new Agent(t).get(`/dashboard/renders/${ref}/thumbnail`)).statusCode,
      303,
      'not without a session',
    );
    const missing = await a.get('/dashboard/renders?reference=Render_nope');
    assert.match(missing.body, /role="alert">No render Render_nope/);
  });

  it('renders every partner page at 200 for a signed-in partner', async () => {
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
    ]) {
      const res = await a.get(url);
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /<main id="main"/, url);
      assert.match(res.body, /<h1>/, url);
    }
    assert.equal((await a.get('/dashboard/stores/Store_nope')).statusCode, 404);
    assert.equal((await a.get('/dashboard/orders?status=bogus&from=yesterday')).statusCode, 200);
  });
});

export { PARTNER };

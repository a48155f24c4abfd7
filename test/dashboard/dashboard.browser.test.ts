import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { categories, itemIssues, shippedOrder } from '../claims/helpers.ts';
import { createOrder, orderBody, ship, startProduction, store, uploadImage } from '../orders/helpers.ts';
import sharp from 'sharp';
import { createRender, seeded } from '../rendering/helpers.ts';
import { type TestApp, call, servedApp } from '../support/app.ts';
import {
  type OpenBrowser,
  SHOTS,
  WIDTHS,
  openBrowser,
  shoot as shootPage,
  signIn as signInPage,
  skipWithoutChromium,
} from '../support/browser.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import { OPERATOR_USER, PARTNER, csrfOf, signedIn } from './helpers.ts';

/** A partner's artwork as they might upload it: colour fields, shapes and a word. */
const ARTWORK_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="1600">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ff7a59"/><stop offset="1" stop-color="#5b3cc4"/></linearGradient></defs>
<rect width="800" height="1600" fill="url(#g)"/><circle cx="400" cy="700" r="260" fill="#ffd23f" opacity="0.9"/>
<circle cx="560" cy="1150" r="140" fill="#3bceac" opacity="0.85"/><rect x="90" y="1250" width="300" height="200" rx="40" fill="#ee4266"/>
<text x="400" y="740" font-family="DejaVu Sans, sans-serif" font-size="120" font-weight="bold" text-anchor="middle" fill="#1b1b3a">hello</text></svg>`;
describe('dashboard in a real browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: OpenBrowser;
  let page: Page;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    ({ t, base } = await servedApp({ publicBaseUrl: true }));
    rx = await startReceiver();
    // A first visit draws product pictures on demand; on a loaded CI machine that can take longer.
    browser = await openBrowser({ timeout: 30_000, navigationTimeout: 60_000 });
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await rx?.close();
    await t?.close();
  });

  const shoot = (name: string) => shootPage(page, name, { region: true });
  const signIn = (user: { email: string; password: string }, area: 'dashboard' | 'console') =>
    signInPage(page, base, user, area);
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  async function signOut() {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
  }
  async function switchTo(user: { email: string; password: string }, area: 'dashboard' | 'console') {
    await signOut();
    await signIn(user, area);
  }

  it('signs a partner in, with a visible error for a wrong password first', async () => {
    await page.goto(`${base}/dashboard`);
    await page.waitForURL(/\/dashboard\/sign-in\?next=/);
    await shoot('sign-in');
    await page.getByLabel('E-mail').fill(PARTNER.email);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await page.getByRole('alert').innerText(), /e-mail or password is wrong/);
    await page.getByLabel('Password').fill(PARTNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard`);
    assert.match(await page.locator('h1').innerText(), /Overview/);
    assert.match(await page.locator('.env-banner').innerText(), /Test environment/);
    const cookie = (await browser.context.cookies(base)).find((c) => c.name === 'pod_session')!;
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    await shoot('overview');
  });

  it('creates a store and a brand, with the live preview following the colour', async () => {
    await nav('Stores');
    const form = page.getByRole('form', { name: 'Add a store' });
    await form.getByLabel('Store name').fill('Browser store');
    await form.getByLabel('Store code').fill('BROWSER1');
    await form.getByLabel('Callback URL').fill('https://shop.example/callback');
    await form.getByLabel('City').fill('Utrecht');
    await form.getByLabel('Country code (2 letters)').fill('NL');
    await form.getByRole('button', { name: 'Create store' }).click();
    await page.waitForURL(/\/dashboard\/stores\/Store_/);
    assert.match(await page.getByRole('status').innerText(), /Store Browser store created/);
    await page.goto(`${base}/dashboard/stores`);
    assert.match(await page.locator('table').innerText(), /BROWSER1/);
    await shoot('stores');

    await nav('Brands');
    const brand = page.getByRole('form', { name: 'Add a brand' });
    await brand.getByLabel('Brand name').fill('Browser Brand');
    await brand.getByLabel('Primary colour').fill('#aa3300');
    await brand.getByLabel('E-mail').fill('help@browser.example');
    const head = page.locator('[data-preview] .pv-head');
    assert.equal(
      await head.evaluate((el) => getComputedStyle(el).backgroundColor),
      'rgb(170, 51, 0)',
      'preview follows the colour input',
    );
    assert.equal(await page.locator('[data-preview] .pv-name').innerText(), 'Browser Brand');
    await shoot('brand-new');
    await brand.getByRole('button', { name: 'Create brand' }).click();
    await page.waitForURL(/\/dashboard\/brands\/Brand_/);
    const ref = page.url().split('/').pop()!;
    const api = await call(t, 'GET', `/v2/brands/${ref}`);
    assert.equal(api.data.brand.primaryColor, '#aa3300');
    assert.equal(api.data.brand.customerService.email, 'help@browser.example');
    await shoot('brand-edit');
  });

  it('creates an API key, copies the secret, revokes it and the API refuses it', async () => {
    await nav('API keys');
    await page.getByLabel('Name').fill('browser key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#api-key-secret').innerText()).trim();
    assert.match(secret, /^sk_test_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    assert.match(await page.getByRole('button', { name: /Copied|Selected/ }).innerText(), /Copied|Selected/);
    await shoot('api-key-created');
    assert.equal((await call(t, 'GET', '/v2/organization', { key: secret })).statusCode, 200);
    await page.getByRole('link', { name: 'Back to API keys' }).click();
    page.once('dialog', (d) => d.accept());
    await page.locator('tr', { hasText: 'browser key' }).getByRole('button', { name: 'Revoke' }).click();
    await page.waitForSelector('text=Key browser key revoked');
    assert.equal((await call(t, 'GET', '/v2/organization', { key: secret })).statusCode, 401);
    await shoot('api-keys');
  });

  it('adds a webhook endpoint pointing to a local receiver and sees deliveries', async () => {
    await nav('Webhooks');
    await page.getByLabel('Endpoint URL').fill(rx.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    assert.match(await page.locator('#webhook-secret').innerText(), /^whsec_/);
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForSelector('text=Test event sent: succeeded');
    assert.equal(rx.received.length, 1);
    await createOrder(t, orderBody(t, await uploadImage(t)));
    await t.s.worker.drain();
    assert.ok(
      rx.received.some((r) => r.body.includes('order.created')),
      'order.created delivered',
    );
    await page.goto(`${base}/dashboard/webhooks/deliveries`);
    const log = await page.locator('table').innerText();
    assert.match(log, /order\.created/);
    assert.match(log, /ping/);
    assert.match(log, /succeeded/);
    await shoot('webhook-deliveries');
    await page.goto(`${base}/dashboard/orders`);
    await shoot('orders');
  });

  it('an operator decides a claim and the partner sees it change', async () => {
    const s = await shippedOrder(t, { quantities: [2] });
    t.clock.advance(5 * 24 * 3600_000);
    const cat = await categories(t);
    const filed = await itemIssues(t, {
      shipmentReference: s.shipment,
      orderReference: s.order,
      claimlines: [{ orderlineIndex: 1, quantity: 2, claimcategoryReference: cat['Wrong item'] }],
    });
    assert.equal(filed.statusCode, 200, filed.body);
    const claim = filed.data.claim.reference;
    await page.goto(`${base}/dashboard/claims/${claim}`);
    assert.match(await page.locator('main').innerText(), /pending/);

    await switchTo(OPERATOR_USER, 'console');
    await shoot('console-organizations');
    await nav('Claims');
    await shoot('console-claims');
    await page.getByRole('link', { name: claim }).click();
    await page.getByLabel('Replace').fill('2');
    await page.getByLabel('Reject').fill('0');
    await page.getByLabel('Comment to the partner').fill('Replaced, sorry');
    await shoot('console-claim-decide');
    await page.getByRole('button', { name: 'Decide claim' }).click();
    await page.waitForSelector('text=Claim decided.');
    await nav('Production');
    await shoot('console-production');

    await switchTo(PARTNER, 'dashboard');
    await page.goto(`${base}/dashboard/claims/${claim}`);
    const text = await page.locator('main').innerText();
    assert.match(text, /resolved/);
    assert.match(text, /Replaced, sorry/);
    assert.match(text, /replace 2, refund 0, reject 0/);
    await shoot('claim-decided');
    await page.goto(`${base}/dashboard/usage`);
    await shoot('usage');
  });

  it('shows the overview with data, the request log and its error detail, and the support lookup', async () => {
    const render = await createRender(t, seeded(t).cStudioIp15, await uploadImage(t));
    assert.equal(render.statusCode, 200, render.body);
    await t.s.worker.drain();
    await page.goto(`${base}/dashboard`);
    assert.match(await page.locator('main').innerText(), /limit 1000|Rendertokens used so far/);
    assert.match(await page.locator('main').innerText(), /Orders per day, last 30 days/);
    await shoot('overview-data');
    await page.locator('.order-cards a').first().click();
    assert.match(await page.locator('main').innerText(), /Timeline/);
    await shoot('order-detail');
    const bad = await call(t, 'GET', '/v2/orders/Order_nope', { headers: { 'x-request-id': 'browser-lookup-1' } });
    assert.equal(bad.statusCode, 404);
    await t.s.requestLog.flush();
    await nav('Request log');
    await shoot('request-log');
    await page.getByRole('link', { name: 'browser-lookup-1' }).click();
    assert.match(await page.locator('main').innerText(), /not_found/);
    await shoot('request-detail');
    // A render of a 3D stage (the oak desk) with a real-looking artwork, on the render's own page.
    const leather = seeded(t).leather;
    assert.ok(leather, 'a leather case in the demo catalog');
    const stage = t.seed.rendering!;
    const found = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${stage.scenes['stage-desk']}&productReference=${leather}&perspectiveReference=${stage.perspectives['stage-desk-left-1000-webp']}`,
    );
    assert.equal(found.statusCode, 200, found.body);
    const artwork = await call(t, 'POST', '/v2/images', {
      payload: await sharp(Buffer.from(ARTWORK_SVG)).png().toBuffer(),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(artwork.statusCode, 200, artwork.body);
    const scene = await createRender(t, found.data.composition.reference, artwork.data.image.reference);
    assert.equal(scene.statusCode, 200, scene.body);
    await t.s.worker.drain();
    await page.goto(`${base}/dashboard/renders?reference=${scene.data.render.reference}`);
    await page.waitForFunction(() => (document.querySelector('img.render-full') as HTMLImageElement | null)?.complete);
    await shoot('render-detail');
    await switchTo(OPERATOR_USER, 'console');
    await nav('Support lookup');
    await page.getByLabel('Request id').fill('browser-lookup-1');
    await page.getByRole('button', { name: 'Find' }).click();
    assert.match(await page.locator('main').innerText(), /Demo Cases Co/);
    await shoot('console-support-lookup');
    await switchTo(PARTNER, 'dashboard');
  });

  it('passes axe-core and fits a phone on every other page of both areas', async () => {
    // Orders, the request log, usage and the console's claims, production and support lookup were
    // already checked with data by the tests above.
    for (const path of [
      'accounts',
      'stores',
      'brands',
      'api-keys',
      'webhooks',
      'billing',
      'claims',
      'renders',
      'users',
    ]) {
      await page.goto(`${base}/dashboard/${path}`);
      await shoot(`page-${path}`);
    }
    await switchTo(OPERATOR_USER, 'console');
    // One case type keeps the catalog short; every row is drawn by the same code.
    for (const path of ['catalog?caseType=clear', 'stock', 'production', 'jobs']) {
      await page.goto(`${base}/console/${path}`);
      await shoot(`console-page-${path.split('?')[0]}`);
    }
    await switchTo(PARTNER, 'dashboard');
  });

  /** An order whose store was called back twice: refused once (red step), then delivered (green). */
  async function orderWithCallbackAttempts() {
    const shop = await startReceiver(() => 503);
    const orgId = t.seed.organizations[0].reference;
    const storeRef = store(t, 'DEMO1');
    try {
      await t.s.organization.updateStore(orgId, storeRef, { callbackUrl: shop.url });
      const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
      await startProduction(t, ref);
      await t.s.worker.drain();
      shop.set(() => 204);
      await ship(t, [ref]);
      await t.s.worker.drain();
      await page.goto(`${base}/dashboard/orders/${ref}`);
      const text = (await page.locator('main').textContent()) ?? '';
      assert.match(text, /Callback to the store, attempt 1\s+HTTP 503/);
      assert.match(text, /Callback to the store, attempt 1\s+HTTP 204/);
      assert.equal(await page.locator('ol.timeline > li.bad').count(), 1);
      await shoot('order-callback-attempts');
    } finally {
      await t.s.organization.updateStore(orgId, storeRef, { callbackUrl: null });
      await shop.close();
    }
  }

  it('shows detail pages, odd searches and copy buttons of short references', async () => {
    await page.goto(`${base}/dashboard/orders`);
    await page.locator('main table a[href^="/dashboard/orders/Order_"]').first().click();
    const copy = page.locator('main button.copy').first();
    const full = (await copy.getAttribute('data-copy-value')) ?? '';
    assert.match(full, /^Order_\w{26}$/);
    assert.ok((await page.locator('main').innerText()).includes(full), 'the whole reference is in the text');
    await copy.click();
    // The label changes once the clipboard write (a promise) settles, not at the click itself.
    await page
      .locator('main button.copy', { hasText: /Copied|Order_/ })
      .first()
      .waitFor();
    assert.match(await copy.innerText(), /Copied|Order_/);
    await orderWithCallbackAttempts();
    await page.goto(`${base}/dashboard/webhooks`);
    await page.locator('main table a[href^="/dashboard/webhooks/Webhookendpoint_"]').first().click();
    assert.match(await page.locator('main').innerText(), /Health \(24 h\)/);
    await shoot('webhook-endpoint');
    await page.goto(`${base}/dashboard/stores`);
    await page.locator('main table a[href^="/dashboard/stores/Store_"]').first().click();
    await shoot('store-edit');
    await page.goto(`${base}/dashboard/events`);
    await shoot('events');
    const odd = encodeURIComponent(`'"><script>x</script>%_\\`);
    let res = await page.goto(`${base}/dashboard/requests?requestId=${odd}&path=${odd}&key=${odd}&status=${odd}`);
    assert.equal(res?.status(), 200);
    assert.match(await page.locator('main').innerText(), /No request matches/);
    res = await page.goto(`${base}/dashboard/renders?reference=${odd}`);
    assert.ok(res && res.status() < 500);

    await switchTo(OPERATOR_USER, 'console');
    res = await page.goto(`${base}/console/catalog?q=${odd}&brand=${odd}&stage=${odd}`);
    assert.equal(res?.status(), 200);
    assert.match(await page.locator('main').innerText(), /No product matches/);
    res = await page.goto(`${base}/console/requests?requestId=${odd}`);
    assert.equal(res?.status(), 200);
    assert.match(await page.locator('main').innerText(), /No request with this id/);
    await page.goto(`${base}/console`);
    await page.getByRole('link', { name: 'Demo Cases Co' }).click();
    await shoot('console-organization');
    await switchTo(PARTNER, 'dashboard');
  });

  it('greets a new organization with a checklist and says what to do on every empty page', async () => {
    const op = await signedIn(t, OPERATOR_USER, 'console');
    const created = await op.post('/console/organizations', {
      _csrf: csrfOf((await op.get('/console')).body),
      name: 'Fresh Browser Co',
    });
    const orgPath = created.headers.location as string;
    const user = await op.post(`${orgPath}/users`, {
      _csrf: csrfOf((await op.get(orgPath)).body),
      email: 'new@fresh-browser.example',
      password: 'fresh-password-1',
    });
    assert.equal(user.statusCode, 303, user.body);
    await switchTo({ email: 'new@fresh-browser.example', password: 'fresh-password-1' }, 'dashboard');
    const text = await page.locator('main').innerText();
    assert.match(text, /Getting started \(0 of 4 done\)/);
    assert.match(text, /No orders in the last 30 days/);
    assert.match(text, /No orders yet/);
    await shoot('overview-new-organization');
    for (const [path, empty] of [
      ['orders', /No orders/],
      ['webhooks', /endpoint/i],
      ['requests', /No requests yet/],
      ['claims', /No claims/],
    ] as const) {
      await page.goto(`${base}/dashboard/${path}`);
      assert.match(await page.locator('main').innerText(), empty, path);
    }
    await shoot('requests-empty');
    await switchTo(PARTNER, 'dashboard');
  });

  it('folds the navigation behind a menu button on a phone', async () => {
    await page.setViewportSize(WIDTHS.phone);
    await page.goto(`${base}/dashboard`);
    const menu = page.getByRole('button', { name: 'Menu' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).isVisible(), false);
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await page.screenshot({ path: join(SHOTS, 'menu-open-phone.png'), fullPage: true });
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Request log', exact: true })
      .click();
    await page.waitForURL(`${base}/dashboard/requests`);
    await page.setViewportSize(WIDTHS.desktop);
  });

  it('keeps the partner out of the console in the browser', async () => {
    const res = await page.goto(`${base}/console`);
    assert.equal(res?.status(), 403);
    assert.match(await page.locator('main').innerText(), /operator console is for the service/);
  });
});

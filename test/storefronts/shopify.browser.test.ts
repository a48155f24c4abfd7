import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { PARTNER, signedIn, textOf } from '../dashboard/helpers.ts';
import { products, uploadImage } from '../orders/helpers.ts';
import { type TestApp, call, createTestApp, servedApp } from '../support/app.ts';
import { type OpenBrowser, openBrowser, shoot as shootPage, signIn, skipWithoutChromium } from '../support/browser.ts';
import { ShopifyStandIn } from '../support/shopify-standin.ts';
import { connectShop } from './helpers.ts';

describe('Shopify pages of the dashboard in a real browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let shopify: ShopifyStandIn;
  let base: string;
  let browser: OpenBrowser;
  let page: Page;
  let storeRef: string;

  before(async () => {
    shopify = await new ShopifyStandIn('browser-secret').start();
    ({ t, base } = await servedApp({
      env: { SHOPIFY_API_KEY: 'browser-key', SHOPIFY_API_SECRET: 'browser-secret' },
      shopifyFetch: shopify.fetch,
      publicBaseUrl: true,
    }));
    // A connected store with one published design and one publication Shopify refused.
    storeRef = await connectShop(t, shopify);
    await t.s.worker.drain();
    const p = products(t);
    const good = await uploadImage(t);
    const publish = (image: string, title: string) =>
      call(t, 'POST', `/v2/stores/${storeRef}/shopify/publications`, {
        body: {
          publication: { imageReference: image, productReferences: [p.clear, p.leather], priceCents: 2995, title },
        },
      });
    await publish(good, 'Sunset case');
    await t.s.worker.drain();
    shopify.failures.push({ status: 403 });
    await publish(await uploadImage(t), 'Night sky case');
    await t.s.worker.drain();

    browser = await openBrowser({ timeout: 30_000 });
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await shopify?.stop();
  });

  const shoot = (name: string) => shootPage(page, name, { region: true });

  it('lists the Shopify stores, shows a store with its products, mockups and failures, and retries a failure', async () => {
    await signIn(page, base, PARTNER, 'dashboard');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shopify', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/shopify`);
    assert.ok(await page.getByRole('link', { name: 'Case Lovers' }).isVisible());
    assert.ok(await page.getByRole('button', { name: 'Connect on Shopify' }).isVisible());
    await shoot('shopify-stores');

    await page.getByRole('link', { name: 'Case Lovers' }).click();
    await page.waitForURL(`${base}/dashboard/shopify/${storeRef}`);
    const thumb = page.getByRole('img', { name: 'Mockup 1 of Sunset case' });
    await thumb.waitFor();
    assert.ok((await thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0, 'the mockup loads');
    const failures = page.getByRole('region', { name: 'Sync failures' });
    assert.match(await failures.innerText(), /publish[\s\S]*Night sky case[\s\S]*403/);
    await shoot('shopify-store');

    await failures.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL(`${base}/dashboard/shopify/${storeRef}`);
    assert.match(await page.getByRole('status').innerText(), /Queued again/);
    await t.s.worker.drain();
    await page.reload();
    assert.match(
      await page.getByRole('region', { name: 'Published products' }).innerText(),
      /Night sky case\s+2\s+29\.95\s+published/,
    );
    assert.equal(await page.getByRole('region', { name: 'Sync failures' }).count(), 0, 'nothing failed any more');
  });

  it('shows the Shopify order name on a Shopify order', async () => {
    const demo = t.seed.organizations[0].stores.find((x) => x.code === 'DEMOSHOP')!.reference;
    const [o] = (await call(t, 'GET', `/v2/orders?storeReference=${demo}`)).data.orders;
    const agent = await signedIn(t);
    const res = await agent.get(`/dashboard/orders/${o.reference}`);
    assert.match(textOf(res.body), new RegExp(`Shopify order ${o.upstreamOrder.name} ${o.upstreamOrder.id}`));
  });
});

describe('Shopify pages without the Shopify app set up', () => {
  it('say how to set up the app', async () => {
    const t = await createTestApp();
    try {
      const agent = await signedIn(t);
      const res = await agent.get('/dashboard/shopify');
      assert.equal(res.statusCode, 200);
      const text = textOf(res.body);
      assert.match(text, /Shopify is not set up on this service/);
      assert.match(text, /SHOPIFY_API_KEY/);
      assert.match(text, /\/integrations\/shopify\/callback/);
      // The demo's stand-in shop is listed even so: its orders came through the intake at seed.
      assert.match(text, /demo-cases\.myshopify\.com/);
    } finally {
      await t.close();
    }
  });
});

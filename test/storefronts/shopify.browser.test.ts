import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { PARTNER, signedIn, textOf } from '../dashboard/helpers.ts';
import { products, uploadImage } from '../orders/helpers.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { ShopifyStandIn } from '../support/shopify-standin.ts';
import { connectShop } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}; browser test skipped`;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('Shopify pages of the dashboard in a real browser', { skip }, () => {
  let t: TestApp;
  let shopify: ShopifyStandIn;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let storeRef: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    shopify = await new ShopifyStandIn('browser-secret').start();
    t = await createTestApp({
      env: { PUBLIC_BASE_URL: base, SHOPIFY_API_KEY: 'browser-key', SHOPIFY_API_SECRET: 'browser-secret' },
      shopifyFetch: shopify.fetch,
    });
    await t.app.listen({ host: '127.0.0.1', port });
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

    mkdirSync(SHOTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'pod-chromium-'));
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-sync',
      ],
      viewport: WIDTHS.desktop,
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);
  });
  after(async () => {
    await context?.close();
    await t?.close();
    await shopify?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** Screenshots at 1280 and 390 px, axe-core clean, nothing wider than the phone. */
  async function shoot(name: string) {
    for (const [label, size] of Object.entries(WIDTHS)) {
      await page.setViewportSize(size);
      await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
        return result.violations
          .filter((v: any) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'region')
          .map(
            (v: any) =>
              `${v.id}: ${v.nodes
                .map((n: any) => n.target.join(' '))
                .slice(0, 3)
                .join(', ')}`,
          );
      });
      assert.deepEqual(violations, [], `axe-core on ${name} at ${label}`);
      if (label === 'phone') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 1, `${name} is ${overflow} px wider than a 390 px phone`);
      }
    }
    await page.setViewportSize(WIDTHS.desktop);
  }

  it('lists the Shopify stores, shows a store with its products, mockups and failures, and retries a failure', async () => {
    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByLabel('E-mail').fill(PARTNER.email);
    await page.getByLabel('Password').fill(PARTNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard`);
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

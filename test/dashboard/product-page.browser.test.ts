import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createOrder, orderBody, uploadImage } from '../orders/helpers.ts';
import { type TestApp, servedApp } from '../support/app.ts';
import { type OpenBrowser, openBrowser, shoot, signIn, skipWithoutChromium } from '../support/browser.ts';
import { OPERATOR_USER, PARTNER } from './helpers.ts';

describe("a case's colourway on the product pages, in a real browser", { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: OpenBrowser;
  let page: Page;
  let tough: string;

  before(async () => {
    ({ t, base } = await servedApp());
    browser = await openBrowser({ timeout: 30_000, navigationTimeout: 60_000 });
    page = browser.page;
    [{ id: tough }] = await t.db.query<{ id: string }>('SELECT id FROM products WHERE name = $1', [
      'iPhone 15 Tough Case Graphite and Orange',
    ]);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The colourway section names each part and its colour beside a swatch of that colour. */
  async function colourwayShown() {
    const section = page.getByRole('region', { name: 'Colourway' });
    await assert.doesNotReject(section.getByText('Graphite/Orange').waitFor());
    const parts = await section.locator('li').allInnerTexts();
    assert.deepEqual(
      parts.map((p) => p.trim()),
      ['Shell: #2b2d31', 'Bezel (side wall): #f26b1d', 'Camera ring: #f26b1d'],
    );
    const colours = await section
      .locator('.swatch')
      .evaluateAll((els) => els.map((e) => [getComputedStyle(e).backgroundColor, e.getBoundingClientRect().width]));
    assert.deepEqual(
      colours.map(([c]) => c),
      ['rgb(43, 45, 49)', 'rgb(242, 107, 29)', 'rgb(242, 107, 29)'],
    );
    assert.ok(
      colours.every(([, w]) => Number(w) >= 16),
      'swatches large enough to see',
    );
  }

  it('shows it on the console product page, reached from the catalog', async () => {
    await signIn(page, base, OPERATOR_USER, 'console');
    await page.goto(`${base}/console/catalog?q=Graphite`);
    await page.getByRole('link', { name: 'iPhone 15 Tough Case Graphite and Orange' }).click();
    await page.waitForURL(`${base}/console/catalog/${tough}`);
    await colourwayShown();
    await shoot(page, 'console-product-colourway', { region: true });
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it("shows it on the partner dashboard's product page, opened from an order, which leads back to the order", async () => {
    const image = await uploadImage(t);
    const order = await createOrder(
      t,
      orderBody(t, image, { orderlines: [{ productReference: tough, imageReference: image, quantity: 1 }] }),
    );
    const { legacyOrderCode } = await t.s.orders.get(t.seed.organizations[0].reference, order);
    await signIn(page, base, PARTNER, 'dashboard');
    await page.goto(`${base}/dashboard/orders/${order}`);
    await page.getByRole('link', { name: 'iPhone 15 Tough Case Graphite and Orange' }).click();
    await page.waitForURL(`${base}/dashboard/products/${tough}?from=*`);
    await colourwayShown();
    await shoot(page, 'dashboard-product-colourway', { region: true });
    await page.getByRole('link', { name: `Back to order ${legacyOrderCode}` }).click();
    await page.waitForURL(`${base}/dashboard/orders/${order}`);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { PARTNER } from '../dashboard/helpers.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { type TestApp, operator, servedApp } from '../support/app.ts';
import { type OpenBrowser, openBrowser, shoot, signIn, skipWithoutChromium } from '../support/browser.ts';

/** The partner's billing page with invoices in every payment state, in Chromium at phone and desktop width. */
describe('the billing page in a real browser (production)', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: OpenBrowser;
  let page: Page;
  const invoices: Record<string, any> = {};

  before(async () => {
    ({ t, base } = await servedApp({ env: { APP_ENV: 'production' }, publicBaseUrl: true }));
    // One order and one invoice a month, August to November; looked at on 5 December.
    for (const [month, next] of [
      ['08', '09'],
      ['09', '10'],
      ['10', '11'],
      ['11', '12'],
    ]) {
      t.clock.set(`2026-${month}-05T09:00:00.000Z`);
      const order = await createOrder(t, {
        order: {
          storeReference: store(t, 'DEMO1'),
          shippingKind: 'dropship',
          customIdentifier: `shop-${month}`,
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference: products(t).protector, quantity: 2 }],
        },
      });
      assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
      t.clock.set(`2026-${next}-01T03:00:00.000Z`);
      const issued = await operator(t, 'POST', '/invoices/issue', { month: `2026-${month}` });
      assert.equal(issued.statusCode, 200, issued.body);
      invoices[month] = issued.data.invoices.find((i: any) => i.lines.some((l: any) => l.orderReference === order));
      assert.ok(invoices[month], issued.body);
    }
    t.clock.set('2026-12-05T10:00:00.000Z');
    const acc = invoices['08'].accountReference;
    const pay = (inv: any, amount: number) =>
      operator(t, 'POST', `/accounts/${acc}/payments`, {
        amount,
        note: 'bank transfer',
        invoiceReference: inv.reference,
      });
    assert.equal((await pay(invoices['08'], invoices['08'].total)).statusCode, 200);
    assert.equal((await pay(invoices['11'], 500)).statusCode, 200);
    const cn = await operator(t, 'POST', `/invoices/${invoices['09'].reference}/credit-notes`, {
      reason: 'price correction',
      net: 100,
    });
    assert.equal(cn.statusCode, 200, cn.body);

    browser = await openBrowser({ timeout: 30_000 });
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows each invoice payment state and links its PDF and UBL, at 1280 and 390 px', async () => {
    await signIn(page, base, PARTNER, 'dashboard');
    await page.goto(`${base}/dashboard/billing`);
    const table = page.locator('table', { has: page.locator('caption', { hasText: 'Invoices and credit notes' }) });
    const row = (n: string) => table.locator('tr', { hasText: new RegExp(`^\s*${n}`) }).first();
    assert.match(await row(invoices['08'].number).innerText(), /paid/);
    assert.match(await row(invoices['09'].number).innerText(), /overdue/);
    assert.match(await row(invoices['10'].number).innerText(), /overdue/);
    assert.match(await row(invoices['11'].number).innerText(), /partially paid/);
    assert.match(
      await table.locator('tr', { hasText: 'CN-2026-' }).first().innerText(),
      new RegExp(`credits ${invoices['09'].number}`),
    );

    assert.ok(!(await page.locator('main').innerText()).includes(')}'), 'no template residue on the page');
    const ubl = await page.request.get(`${base}/dashboard/billing/invoices/${invoices['10'].reference}/ubl`);
    assert.equal(ubl.status(), 200);
    assert.match(await ubl.text(), new RegExp(`<cbc:ID>${invoices['10'].number}</cbc:ID>`));
    const pdf = await page.request.get(`${base}/dashboard/billing/invoices/${invoices['10'].reference}/pdf`);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');

    await shoot(page, 'billing-states');
  });
});

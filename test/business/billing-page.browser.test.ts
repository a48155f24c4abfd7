import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { PARTNER } from '../dashboard/helpers.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';

const CHROMIUM = '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM} (apt-get install chromium)`;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** The partner's billing page with invoices in every payment state, in Chromium at phone and desktop width. */
describe('the billing page in a real browser (production)', { skip }, () => {
  let t: TestApp;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const invoices: Record<string, any> = {};

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { APP_ENV: 'production', PUBLIC_BASE_URL: base } });
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

    await t.app.listen({ host: '127.0.0.1', port });
    mkdirSync(SHOTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'pod-chromium-'));
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: WIDTHS.desktop,
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);
  });
  after(async () => {
    await context?.close();
    await t?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('shows each invoice payment state and links its PDF and UBL, at 1280 and 390 px', async () => {
    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByLabel('E-mail').fill(PARTNER.email);
    await page.getByLabel('Password').fill(PARTNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard`);
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

    for (const [label, size] of Object.entries(WIDTHS)) {
      await page.setViewportSize(size);
      await page.screenshot({ path: join(SHOTS, `billing-states-${label}.png`), fullPage: true });
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
        return result.violations
          .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
          .map(
            (v: any) =>
              `${v.id}: ${v.nodes
                .map((n: any) => n.target.join(' '))
                .slice(0, 3)
                .join(', ')}`,
          );
      });
      assert.deepEqual(violations, [], `axe-core at ${label} width`);
      if (label === 'phone') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 1, `the billing page is ${overflow} px wider than a 390 px phone`);
      }
    }
  });
});

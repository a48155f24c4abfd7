import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { OPERATOR_USER } from '../dashboard/helpers.ts';
import { ADDRESS, createOrder, orderBody, startProduction, uploadImage } from '../orders/helpers.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { SendcloudStandIn } from '../support/sendcloud-standin.ts';

const CHROMIUM = '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}; browser test skipped`;
const LONG_STREET = 'Schiedamse Vest Achterzijde Bedrijfsverzamelgebouw';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe("the console's shipment pages in a real browser", { skip }, () => {
  let t: TestApp;
  let sc: SendcloudStandIn;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let refused: string;
  let travelled: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    sc = await new SendcloudStandIn().start();
    t = await createTestApp({ env: { ...sc.env, PUBLIC_BASE_URL: base } });
    await t.app.listen({ host: '127.0.0.1', port });
    const image = await uploadImage(t);
    const shipTo = async (address: Record<string, string>) => {
      const ref = await createOrder(
        t,
        orderBody(t, image, { dropshipAddress: address, dropshipMinimalShippingLevel: 'tracked' }),
      );
      await startProduction(t, ref);
      const res = await call(t, 'POST', '/v2/test-helpers/shipments', {
        body: { shipment: { orderReferences: [ref] } },
      });
      return res.data.shipment.reference as string;
    };
    refused = await shipTo({ ...ADDRESS, streetname: LONG_STREET });
    travelled = await shipTo(ADDRESS);
    await t.s.worker.drain();
    // The second parcel travels and runs into trouble, with a status the mapping table does not know.
    const p = sc.byReference(travelled)!;
    const now = t.clock.now().getTime();
    for (const [i, status] of [
      { id: 3, message: 'En route to sorting center' },
      { id: 4242, message: 'Parcel held for inspection' },
      { id: 8, message: 'Delivery attempt failed' },
    ].entries()) {
      const hook = sc.webhook(p, status, new Date(now + (i + 1) * 60_000));
      await t.app.inject({
        method: 'POST',
        url: '/integrations/sendcloud/webhooks',
        headers: { 'content-type': 'application/json', 'sendcloud-signature': hook.signature },
        payload: hook.raw,
      });
    }

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
    await sc?.stop();
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

  it('lists what needs attention, shows the carrier refusal, and the operator corrects the address', async () => {
    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('E-mail').fill(OPERATOR_USER.email);
    await page.getByLabel('Password').fill(OPERATOR_USER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shipments', exact: true }).click();
    await page.waitForURL(`${base}/console/shipments`);
    const list = page.getByRole('region', { name: 'Shipments that need attention, oldest first' });
    const text = await list.innerText();
    assert.match(text, new RegExp(`refused[\\s\\S]*Ensure this field has no more than 35 characters`));
    assert.match(text, /exception/);
    await shoot('console-shipments-attention');

    await page.goto(`${base}/console/shipments/${refused}`);
    assert.match(
      await page.getByRole('region', { name: 'The carrier refused the parcel' }).innerText(),
      /\/to_address\/address_line_1: Ensure this field has no more than 35 characters\./,
    );
    const fix = page.getByRole('form', { name: 'Correct the address' });
    assert.equal(await fix.getByLabel('Street').inputValue(), LONG_STREET, 'shown whole, never cut');
    await shoot('console-shipment-refused');
    await fix.getByLabel('Street').fill('Schiedamse Vest');
    await fix.getByLabel('Address line 2').fill('Achterzijde');
    await fix.getByRole('button', { name: 'Correct and announce again' }).click();
    await page.waitForURL(`${base}/console/shipments/${refused}`);
    assert.match(await page.getByRole('status').innerText(), /Address corrected/);
    await t.s.worker.drain();
    await page.reload();
    const facts = await page.getByRole('region', { name: 'Carrier and label' }).innerText();
    assert.match(facts, /PostNL/);
    assert.match(facts, new RegExp(sc.byReference(refused)!.trackingNumber));
    const label = await page.request.get(`${base}/console/shipments/${refused}/label.pdf`);
    assert.equal(label.status(), 200);
    assert.equal((await label.body()).subarray(0, 5).toString(), '%PDF-');
    assert.equal(await page.getByRole('region', { name: 'The carrier refused the parcel' }).count(), 0);
  });

  it('shows a travelled parcel with every tracking event and every status the carrier sent', async () => {
    await page.goto(`${base}/console/shipments/${travelled}`);
    const events = await page.getByRole('region', { name: 'Tracking events, oldest first' }).innerText();
    assert.match(events, /in transit[\s\S]*exception/);
    const said = await page.getByRole('region', { name: 'Carrier statuses as received' }).innerText();
    assert.match(said, /4242[\s\S]*Parcel held for inspection[\s\S]*kept, not a tracking event/);
    assert.match(await page.getByRole('region', { name: 'Carrier and label' }).innerText(), /delivery problem/);
    await shoot('console-shipment-tracking');
  });
});

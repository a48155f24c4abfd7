import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type TestApp, createTestApp } from '../support/app.ts';
import { OPERATOR_USER } from '../dashboard/helpers.ts';
import { createOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';
import { operator } from '../support/app.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}; browser test skipped`;

/** Counts the station's tones: each oscillator started, with its frequency. */
const COUNT_TONES = `(() => { window.__tones = []; const A = window.AudioContext; if (!A) return;
  const make = A.prototype.createOscillator;
  A.prototype.createOscillator = function () { const o = make.call(this); const start = o.start.bind(o);
    o.start = (at) => { window.__tones.push(o.frequency.value); try { start(at); } catch {} }; return o; }; })();`;

describe('the print station in a real browser', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base = '';

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    mkdirSync(SHOTS, { recursive: true });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--autoplay-policy=no-user-gesture-required',
      ],
    });
    page = await browser.newPage({ viewport: WIDTHS.desktop });
    await page.addInitScript(COUNT_TONES);
    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('E-mail').fill(OPERATOR_USER.email);
    await page.getByLabel('Password').fill(OPERATOR_USER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console`);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Screenshots at phone and desktop width; no serious axe-core finding, nothing wider than the phone. */
  async function shoot(name: string) {
    for (const [label, size] of Object.entries(WIDTHS)) {
      await page.setViewportSize(size);
      await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
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
      assert.deepEqual(violations, [], `axe-core on ${name} at ${label} width`);
      if (label === 'phone') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 1, `${name} is ${overflow} px wider than a 390 px phone`);
      }
    }
    await page.setViewportSize(WIDTHS.desktop);
  }
  const scan = async (code: string) => {
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
  };
  const tones = () => page.evaluate(() => (window as any).__tones as number[]);

  it('scan a batch sheet and Enter: the batch is printed, with a tone; a case code or a printed batch is refused aloud', async () => {
    const image = await uploadImage(t);
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        orderlines: [{ productReference: products(t).clear, imageReference: image, quantity: 2 }],
      }),
    );
    assert.equal((await operator(t, 'POST', `/orders/${ref}/start-production`)).statusCode, 204);
    const batched = await operator(t, 'POST', '/production/batches', { flush: true });
    const batch = batched.data.batches[0].reference as string;
    const unit = (await operator(t, 'GET', `/production/batches/${batch}`)).data.slots[0].unitReference as string;

    await page.goto(`${base}/console/production/stations/print`);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    await page.getByText(`then scan its batch sheet`).waitFor();
    await shoot('station-print');

    await scan(unit);
    await page.getByRole('alert').getByText(`${unit} is a case, not a batch`).waitFor();
    assert.deepEqual(await tones(), [220, 165], 'two low tones: refused');
    await shoot('station-print-refused');

    // A wedge scanner with Caps Lock on sends capitals: still the batch.
    await scan(batch.toUpperCase());
    await page.getByText('Printed: take the jig to QC').waitFor();
    assert.deepEqual((await tones()).slice(2), [988], 'one high tone: done');
    assert.equal(page.url(), `${base}/console/production/stations/print`);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    const after = (await operator(t, 'GET', `/production/batches/${batch}`)).data;
    assert.equal(after.status, 'printed');
    assert.ok(after.slots.every((s: any) => s.state === 'printed'));
    await shoot('station-print-done');

    await scan(batch);
    await page.getByRole('alert').getByText(`Batch ${batch} is printed`).waitFor();
  });
});

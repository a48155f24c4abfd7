import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type TestApp, createTestApp } from '../support/app.ts';
import { OPERATOR_USER } from '../dashboard/helpers.ts';
import { unitsInProduction } from './floor-helpers.ts';
import { store } from '../orders/helpers.ts';

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

describe('floor stations and overview in a real browser', { skip }, () => {
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

  it('QC: a scan and Enter records the verdict in place, beeps, and keeps the input focused; a wrong scan sounds the alarm', async () => {
    const { units } = await unitsInProduction(t, 2);
    await page.goto(`${base}/console/production/stations/qc`);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    await shoot('station-qc');
    await scan(units[0]);
    await page.getByText('Passed: put it in the packing tray').waitFor();
    assert.equal(page.url(), `${base}/console/production/stations/qc`);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    assert.deepEqual(await tones(), [988], 'one high tone: done');

    await scan(units[0]);
    await page.getByRole('alert').getByText(`${units[0]} passed QC already`).waitFor();
    assert.deepEqual((await tones()).slice(1), [220, 165], 'two low tones: refused');
    await shoot('station-qc-refused');

    await page.getByLabel('Fail: misprint').check();
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'code');
    await scan(units[1]);
    await page.getByText('Failed (misprint): put it in the scrap bin').waitFor();
    assert.equal(await page.getByLabel('Pass').isChecked(), true, 'the next scan is a pass again');
    await shoot('station-qc-failed');
  });

  it('pack: lists what is missing, then ships with the label and slip to print', async () => {
    const { units } = await unitsInProduction(t, 2);
    await t.s.production.stations.qc(units[0], 'pass');
    await page.goto(`${base}/console/production/stations/pack`);
    await scan(units[0]);
    await page.getByText('1 of 2 cases here: keep the parcel open').waitFor();
    await shoot('station-pack-missing');
    await t.s.production.stations.qc(units[1], 'pass');
    await scan(units[1]);
    await page.getByText('Parcel complete: print the label and the packing slip').waitFor();
    await shoot('station-pack-done');
  });

  it('pack: a combined parcel shows every case of its orders, then ships them as one shipment', async () => {
    const combined = (cases: number) =>
      unitsInProduction(t, cases, true, {
        storeReference: store(t, 'DEMO2'),
        shippingKind: 'combined',
        dropshipAddress: undefined,
      });
    const a = await combined(2);
    const b = await combined(1);
    for (const u of [...a.units, ...b.units]) await t.s.production.stations.qc(u, 'pass');
    await page.goto(`${base}/console/production/stations/pack`);
    await scan(a.units[0]);
    await page.getByText('1 of 3 cases here: keep the parcel open').waitFor();
    await page.getByText(`${a.ref}: 1 of 2 here`).waitFor();
    await page.getByText(`${b.ref}: 0 of 1 here`).waitFor();
    await shoot('station-pack-parcel');
    await scan(b.units[0]);
    await page.getByText('2 of 3 cases here: keep the parcel open').waitFor();
    await scan(a.units[1]);
    await page.getByText('Parcel complete: print the label and the packing slip').waitFor();
    await page.getByText(`${a.ref}, ${b.ref}`).waitFor();
    await shoot('station-pack-parcel-done');
  });

  it('the production overview shows stages, late orders, throughput and remakes', async () => {
    await page.goto(`${base}/console/production/overview`);
    await page.getByRole('heading', { name: 'Remake rate by reason' }).waitFor();
    assert.ok((await page.locator('svg.bars').count()) >= 1);
    await shoot('production-overview');
  });
});

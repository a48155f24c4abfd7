import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LABELS, shortLabel } from '../../src/openapi/labels.ts';
import { type TestApp, createTestApp } from '../support/app.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
const skip = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM} (apt-get install chromium); browser test skipped`;
if (skip) console.log(`# ${skip}`);

describe('short labels', () => {
  it('every operation has a short label; the full sentence leads its description', async () => {
    const t = await createTestApp();
    try {
      const doc = (await t.app.inject({ url: '/v2/openapi.json' })).json();
      for (const item of Object.values<any>(doc.paths))
        for (const op of Object.values<any>(item)) {
          assert.ok(LABELS[op.operationId], `${op.operationId} has a label in src/openapi/labels.ts`);
          assert.ok(op.summary.length <= 36, `${op.operationId}: "${op.summary}" is short`);
        }
      const render = doc.paths['/v2/renders'].post;
      assert.equal(render.summary, 'Create a render');
      assert.match(render.description, /^Render an image in a composition; deducts the token cost/);
    } finally {
      await t.close();
    }
  });

  it('an operation without a label keeps its summary up to the first clause', () => {
    assert.equal(shortLabel('somethingNew', 'Add a thing; the answer carries a secret'), 'Add a thing');
    assert.equal(shortLabel('somethingNew', 'Test environment: make it happen'), 'Make it happen');
  });
});

/** /docs as a partner opens it on a machine without a network: everything from this server. */
describe('/docs without a network', { skip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let profile: string;
  const outside: string[] = [];

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    mkdirSync(SHOTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'pod-docs-'));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  async function open(width: number, height: number): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height } });
    // The network is cut: every request that is not for this server fails, and is recorded.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      outside.push(url);
      return route.abort('internetdisconnected');
    });
    await page.goto(`${base}/docs`, { waitUntil: 'networkidle' });
    // The first section (Authentication) opens expanded; the others open on demand.
    await page.getByText('Check a key').first().waitFor({ timeout: 30_000 });
    return page;
  }

  it('renders from this server alone, with its own title, fonts and no outside features', async () => {
    const page = await open(1280, 900);
    assert.deepEqual(outside, [], 'no request leaves the server');
    assert.equal(await page.title(), 'Partner API v2 · Reference');
    const fonts = await page.evaluate(async () => {
      await document.fonts.ready;
      return [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family.replace(/"/g, ''));
    });
    assert.ok(fonts.includes('Inter'), `Inter is loaded from /docs/fonts (${fonts.join(', ')})`);
    const text = await page.locator('body').innerText();
    for (const feature of ['Ask AI', 'Deploy', 'Share', 'Generate MCP'])
      assert.ok(!text.includes(feature), `no "${feature}" (needs an outside service)`);
    await page.screenshot({ path: join(SHOTS, 'docs-desktop.png') });
    await page.close();
  });

  it('fits a phone', async () => {
    const page = await open(390, 844);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no sideways scrolling (${overflow} px)`);
    await page.screenshot({ path: join(SHOTS, 'docs-phone.png') });
    await page.close();
    assert.deepEqual(outside, []);
  });

  it('serves the fonts it names and nothing else from /docs/fonts', async () => {
    const ok = await fetch(`${base}/docs/fonts/inter-latin-wght-normal.woff2`);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('content-type'), 'font/woff2');
    assert.ok((await ok.arrayBuffer()).byteLength > 10_000);
    const other = await fetch(`${base}/docs/fonts/..%2F..%2Fpackage.json`);
    assert.equal(other.status, 404);
  });
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { LABELS, shortLabel } from '../../src/openapi/labels.ts';
import { type TestApp, servedApp } from '../support/app.ts';
import { type OpenBrowser, SHOTS, openBrowser, overflow, skipWithoutChromium } from '../support/browser.ts';

// One served app for the file: the labels are read from its OpenAPI document, the browser opens its /docs.
let t: TestApp;
let base: string;
before(async () => {
  ({ t, base } = await servedApp());
});
after(async () => {
  await t?.close();
});

describe('short labels', () => {
  it('every operation has a short label; the full sentence leads its description', async () => {
    const doc = (await t.app.inject({ url: '/v2/openapi.json' })).json();
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item)) {
        assert.ok(LABELS[op.operationId], `${op.operationId} has a label in src/openapi/labels.ts`);
        assert.ok(op.summary.length <= 36, `${op.operationId}: "${op.summary}" is short`);
      }
    const render = doc.paths['/v2/renders'].post;
    assert.equal(render.summary, 'Create a render');
    assert.match(render.description, /^Render an image in a composition; deducts the token cost/);
  });

  it('an operation without a label keeps its summary up to the first clause', () => {
    assert.equal(shortLabel('somethingNew', 'Add a thing; the answer carries a secret'), 'Add a thing');
    assert.equal(shortLabel('somethingNew', 'Test environment: make it happen'), 'Make it happen');
  });
});

/** /docs as a partner opens it on a machine without a network: everything from this server. */
describe('/docs without a network', { skip: skipWithoutChromium }, () => {
  let browser: OpenBrowser;
  const outside: string[] = [];

  before(async () => {
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  async function open(width: number, height: number): Promise<Page> {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width, height });
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
    const wider = await overflow(page);
    assert.ok(wider <= 1, `no sideways scrolling (${wider} px)`);
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

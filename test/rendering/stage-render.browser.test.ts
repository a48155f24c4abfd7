import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { stagePerspectiveKey, stageSceneKey } from '../../src/modules/rendering/stage-compositions.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createRender } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}; browser test skipped`;
/** A full-bleed artwork with black, colour and a transparent top (the clear case shows the phone there). */
const ARTWORK_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="1800">
<rect y="500" width="900" height="260" fill="#000"/><rect y="760" width="450" height="1040" fill="#e63946"/>
<rect x="450" y="760" width="450" height="1040" fill="#1d3557"/><circle cx="450" cy="1250" r="260" fill="#ffd166"/></svg>`;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('a 2000 px 3D stage render, seen in a real browser', { skip }, () => {
  let t: TestApp;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  let profile: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ host: '127.0.0.1', port });
    mkdirSync(SHOTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'pod-chromium-'));
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: { width: 1280, height: 900 },
      extraHTTPHeaders: { 'x-service-secret-key': t.key },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(60_000);
  });
  after(async () => {
    await context?.close();
    await t?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('shows the clear case in the marble stage at 2000 px, whole and at 100 % around the camera', async () => {
    const product = t.seed.organizations[0].products!.find((p) => p.name === 'iPhone 15 Clear Case')!.reference;
    const scene = t.seed.rendering!.scenes[stageSceneKey('marble')];
    const perspective = t.seed.rendering!.perspectives[stagePerspectiveKey('marble', 'left', 2000, 'png')];
    const found = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${scene}&productReference=${product}&perspectiveReference=${perspective}`,
    );
    assert.equal(found.statusCode, 200, found.body);
    const image = await call(t, 'POST', '/v2/images', {
      payload: await sharp(Buffer.from(ARTWORK_SVG)).png().toBuffer(),
      headers: { 'content-type': 'application/octet-stream' },
    });
    const created = await createRender(t, found.data.composition.reference, image.data.image.reference);
    await t.s.worker.drain();
    const ref = created.data.render.reference;
    assert.equal((await call(t, 'GET', `/v2/renders/${ref}`)).data.render.status, 'completed');

    // The whole render as the browser shows a downloaded image, then a 100 % crop around the case.
    await page.goto(`${base}/v2/renders/${ref}/media`);
    await page.screenshot({ path: join(SHOTS, 'stage-render-2000-whole.png') });
    // At a 2000 px viewport the browser's own image view shows it at 100 %: one image pixel a screen pixel.
    await page.setViewportSize({ width: 2000, height: 2000 });
    await page.reload();
    const size = await page
      .locator('img')
      .evaluate(async (img: HTMLImageElement) => (await img.decode(), [img.naturalWidth, img.naturalHeight]));
    assert.deepEqual(size, [2000, 2000]);
    // The case's camera corner, its clear rim and the black band below the camera.
    const crop = join(SHOTS, 'stage-render-2000-camera-100.png');
    const shot = await page.screenshot({
      path: crop,
      clip: { x: 560, y: 520, width: 900, height: 700 },
      fullPage: true,
    });
    const stats = await sharp(shot).stats();
    // Black print, red, blue, the phone in the cut-out and the marble: a crop with real contrast.
    assert.ok(stats.channels[0].max - stats.channels[0].min > 200, 'the 100 % crop shows the print and the stage');
    assert.ok(stats.channels[0].min < 40, 'black artwork prints dark on the clear case');
  });
});

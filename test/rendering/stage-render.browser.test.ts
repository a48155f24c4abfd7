import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { stagePerspectiveKey, stageSceneKey } from '../../src/modules/rendering/stage-compositions.ts';
import { type TestApp, call, servedApp } from '../support/app.ts';
import { type OpenBrowser, SHOTS, openBrowser, skipWithoutChromium } from '../support/browser.ts';
import { createRender } from './helpers.ts';

/** A full-bleed artwork with black, colour and a transparent top (the clear case shows the phone there). */
const ARTWORK_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="1800">
<rect y="500" width="900" height="260" fill="#000"/><rect y="760" width="450" height="1040" fill="#e63946"/>
<rect x="450" y="760" width="450" height="1040" fill="#1d3557"/><circle cx="450" cy="1250" r="260" fill="#ffd166"/></svg>`;

describe('a 2000 px 3D stage render, seen in a real browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: OpenBrowser;
  let page: Page;

  before(async () => {
    ({ t, base } = await servedApp({ publicBaseUrl: true }));
    browser = await openBrowser({ extraHTTPHeaders: { 'x-service-secret-key': t.key }, timeout: 60_000 });
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
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

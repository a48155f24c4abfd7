import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { renderPlate } from '../../src/modules/rendering/stage/template.ts';
import { stage } from '../../src/modules/rendering/stage/stages.ts';
import { PARTNER } from '../dashboard/helpers.ts';
import { type TestApp, call, servedApp } from '../support/app.ts';
import {
  type OpenBrowser,
  SHOTS,
  openBrowser,
  shoot as shootPage,
  signIn,
  skipWithoutChromium,
} from '../support/browser.ts';
import { seeded } from './helpers.ts';

const PHOTO = { width: 1200, height: 900 };
/** Where the case goes on the desk photo: a phone lying at an angle between the notebook and the mug. */
const TARGET = {
  topLeft: { x: 500, y: 232 },
  topRight: { x: 712, y: 262 },
  bottomRight: { x: 650, y: 700 },
  bottomLeft: { x: 416, y: 662 },
};
const ARTWORK_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="1600">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ff7a59"/><stop offset="1" stop-color="#5b3cc4"/></linearGradient></defs>
<rect width="800" height="1600" fill="url(#g)"/><circle cx="400" cy="700" r="260" fill="#ffd23f" opacity="0.9"/>
<circle cx="560" cy="1150" r="140" fill="#3bceac" opacity="0.85"/><rect x="90" y="1250" width="300" height="200" rx="40" fill="#ee4266"/></svg>`;

const upload = async (t: TestApp, bytes: Buffer) => {
  const res = await call(t, 'POST', '/v2/images', {
    payload: bytes,
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.image.reference as string;
};

type Box = { x: number; y: number; width: number; height: number };
const inside = (b: Box, v: { width: number; height: number }) =>
  b.x >= 0 && b.y >= 0 && b.x + b.width <= v.width && b.y + b.height <= v.height;

/**
 * At desktop width the whole photo and every corner field show in one screen, each field wide enough
 * to read its number, a corner's x and y side by side, the four corners in one column of equal width.
 */
async function assertCornersInView(page: Page) {
  await page.locator('.corner-editor').evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const viewport = page.viewportSize()!;
  assert.equal(viewport.width, 1280);
  const photo = (await page.locator('.corner-editor img').boundingBox())!;
  assert.ok(photo.width > 400 && inside(photo, viewport), `photo ${JSON.stringify(photo)}`);
  const fieldsets: Box[] = [];
  for (const [corner] of Object.entries(TARGET)) {
    const x = (await page.locator(`input[data-corner="${corner}"][data-axis="x"]`).boundingBox())!;
    const y = (await page.locator(`input[data-corner="${corner}"][data-axis="y"]`).boundingBox())!;
    for (const [axis, b] of [
      ['x', x],
      ['y', y],
    ] as const) {
      assert.ok(b && b.width >= 80 && b.height >= 30, `${corner} ${axis} field is ${JSON.stringify(b)}`);
      assert.ok(inside(b, viewport), `${corner} ${axis} field ${JSON.stringify(b)} is outside the 1280 px screen`);
      assert.ok(b.x >= photo.x + photo.width, `${corner} ${axis} field lies over the photo`);
    }
    assert.ok(Math.abs(x.y - y.y) < 1 && y.x > x.x + x.width, `${corner}: x and y are not side by side`);
    fieldsets.push((await page.locator('.corners fieldset').nth(fieldsets.length).boundingBox())!);
  }
  for (const f of fieldsets.slice(1)) {
    assert.ok(Math.abs(f.x - fieldsets[0].x) < 1 && Math.abs(f.width - fieldsets[0].width) < 1, 'corners not aligned');
  }
}

describe('photo scenes in the partner dashboard, in a real browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: OpenBrowser;
  let page: Page;
  let photo: Buffer;
  let artwork: string;

  before(async () => {
    ({ t, base } = await servedApp({ publicBaseUrl: true }));
    // The partner's photo: the oak desk with a mug and a notebook, as a camera would give it.
    const desk = stage('desk')!;
    const raw = await renderPlate(desk, desk.views[0], PHOTO);
    photo = await sharp(raw, { raw: { ...PHOTO, channels: 3 } })
      .jpeg({ quality: 92 })
      .toBuffer();
    artwork = await upload(t, await sharp(Buffer.from(ARTWORK_SVG)).png().toBuffer());
    browser = await openBrowser({ timeout: 60_000 });
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const shoot = (name: string) => shootPage(page, name, { region: true });

  it('uploads the photo, marks the corners by dragging the handles, makes the scene and shows a case rendered in it', async () => {
    await signIn(page, base, PARTNER, 'dashboard');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Photo scenes' }).click();
    await page.waitForURL(`${base}/dashboard/scenes`);
    await shoot('photo-scenes-upload');
    await page
      .locator('input[name="photo"]')
      .setInputFiles({ name: 'desk.jpg', mimeType: 'image/jpeg', buffer: photo });
    await page.getByRole('button', { name: 'Upload the photo' }).click();
    await page.waitForURL(/\/dashboard\/scenes\/new\?image=/);
    await page.locator('.corner-editor img').evaluate((img: HTMLImageElement) => img.decode());

    // The notice of the upload sits above the photo: bring the whole photo into view.
    await page.locator('.corner-editor').evaluate((el) => el.scrollIntoView({ block: 'end' }));
    // Drag each handle to its place on the photo, as a person would with the mouse.
    for (const [corner, at] of Object.entries(TARGET)) {
      const editor = (await page.locator('.corner-editor').boundingBox())!;
      const handle = (await page.locator(`.handle[data-corner="${corner}"]`).boundingBox())!;
      await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
      await page.mouse.down();
      const x = editor.x + (at.x / PHOTO.width) * editor.width;
      const y = editor.y + (at.y / PHOTO.height) * editor.height;
      await page.mouse.move(x, y, { steps: 6 });
      await page.mouse.up();
    }
    // The arrow keys move a focused handle by a pixel.
    await page.locator('.handle[data-corner="topLeft"]').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await page.getByLabel('Scene name').fill('Oak desk');
    await assertCornersInView(page);
    await shoot('photo-scene-corners');
    await page.getByRole('button', { name: 'Make the scene' }).click();
    await page.waitForURL(/\/dashboard\/scenes\/Scene_/);
    const ref = page.url().split('/').pop()!;

    const made = await call(t, 'GET', `/v2/photo-scenes/${ref}`);
    assert.equal(made.statusCode, 200, made.body);
    for (const [corner, at] of Object.entries(TARGET)) {
      const got = made.data.photoScene.corners[corner];
      assert.ok(Math.abs(got.x - at.x) <= 3 && Math.abs(got.y - at.y) <= 3, `${corner}: ${JSON.stringify(got)}`);
    }

    // The scene page previews a case with the artwork in the photo.
    await page.getByLabel('Artwork').selectOption(artwork);
    await page.getByRole('button', { name: 'Show' }).click();
    const preview = page.locator('img.scene-preview');
    await preview.evaluate((img: HTMLImageElement) => img.decode());
    assert.ok((await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)) === 1000);
    await shoot('photo-scene');

    // And as a real render through the API: kept for a person to look at.
    const d = seeded(t);
    const look = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${ref}&productReference=${d.ip15}&perspectiveReference=${made.data.photoScene.perspectives[0].reference}`,
    );
    assert.equal(look.statusCode, 200, look.body);
    const render = await call(t, 'POST', '/v2/renders', {
      body: { render: { compositionReference: look.data.composition.reference, imageReference: artwork } },
    });
    assert.equal(render.statusCode, 200, render.body);
    await t.s.worker.drain();
    const media = await call(t, 'GET', `/v2/renders/${render.data.render.reference}/media`);
    assert.equal(media.statusCode, 200, media.body);
    await sharp(media.rawPayload).png().toFile(join(SHOTS, 'photo-scene-render.png'));
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { stagePerspectiveKey, stageSceneKey } from '../../src/modules/rendering/stage-compositions.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { seeded } from './helpers.ts';

const LIMIT = 2_000_000;
const CORNERS = {
  topLeft: { x: 480, y: 200 },
  topRight: { x: 700, y: 215 },
  bottomRight: { x: 690, y: 700 },
  bottomLeft: { x: 430, y: 680 },
};

/** A photo of a table lit from the left, as the partner uploads it. */
const tablePhoto = () =>
  sharp(
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900">
      <defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#e8dcc8"/><stop offset="1" stop-color="#8a7a66"/></linearGradient></defs>
      <rect width="100%" height="100%" fill="url(#g)"/></svg>`),
  )
    .jpeg({ quality: 90 })
    .toBuffer();

const upload = (t: TestApp, bytes: Buffer, key = t.key) =>
  call(t, 'POST', '/v2/images', { key, payload: bytes, headers: { 'content-type': 'application/octet-stream' } });

const create = (t: TestApp, imageReference: string, corners: unknown = CORNERS, key = t.key) =>
  call(t, 'POST', '/v2/photo-scenes', {
    key,
    body: { photoScene: { name: 'Our shop counter', imageReference, corners } },
  });

describe("photo scenes: a partner's own photo as a private scene", () => {
  let t: TestApp;
  let photo: string;
  let scene: any;
  before(async () => {
    t = await createTestApp({ env: { UPLOAD_LIMIT_BYTES: String(LIMIT) } });
    const res = await upload(t, await tablePhoto());
    assert.equal(res.statusCode, 200, res.body);
    photo = res.data.image.reference;
  });
  after(() => t.close());

  it('makes a scene of the photo and corners, usable like every scene with any case product', async () => {
    const res = await create(t, photo);
    assert.equal(res.statusCode, 200, res.body);
    scene = res.data.photoScene;
    assert.equal(scene.name, 'Our shop counter');
    assert.equal(scene.imageReference, photo);
    assert.deepEqual(scene.corners, CORNERS);
    assert.deepEqual(scene.photo, { widthPx: 1200, heightPx: 900 });
    // 1200 px: the 1000 px perspectives only, at the photo's aspect.
    assert.deepEqual(
      scene.perspectives.map((p: any) => p.output),
      ['webp', 'jpeg', 'png'].map((format) => ({ widthPx: 1000, heightPx: 750, format })),
    );
    const asScene = await call(t, 'GET', `/v2/scenes/${scene.reference}`);
    assert.equal(asScene.statusCode, 200, asScene.body);
    assert.equal(asScene.data.scene.private, true);
    const listed = await call(t, 'GET', '/v2/photo-scenes');
    assert.deepEqual(
      listed.data.photoScenes.map((s: any) => s.reference),
      [scene.reference],
    );

    const d = seeded(t);
    const perspective = scene.perspectives[0].reference;
    const perspectives = await call(
      t,
      'GET',
      `/v2/perspectives?sceneReference=${scene.reference}&productReference=${d.ip15}`,
    );
    assert.deepEqual(
      perspectives.data.perspectives.map((p: any) => p.reference),
      scene.perspectives.map((p: any) => p.reference),
    );
    const look = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${scene.reference}&productReference=${d.ip15}&perspectiveReference=${perspective}`,
    );
    assert.equal(look.statusCode, 200, look.body);
    assert.equal(look.data.composition.tokenCost, 3);
    // The artwork in the case, on the photo: red where the back is, the photo elsewhere.
    const art = await upload(
      t,
      await sharp({ create: { width: 500, height: 1000, channels: 3, background: '#d02020' } })
        .png()
        .toBuffer(),
    );
    const preview = await call(t, 'POST', '/v2/renders/preview', {
      body: {
        preview: { compositionReference: look.data.composition.reference, imageReference: art.data.image.reference },
      },
    });
    assert.equal(preview.statusCode, 200, preview.body);
    const { data, info } = await sharp(preview.rawPayload).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => {
      const i = (Math.round(y * (info.height / 900)) * info.width + Math.round(x * (info.width / 1200))) * 3;
      return [data[i], data[i + 1], data[i + 2]];
    };
    const [r, g, b] = px(570, 560);
    assert.ok(r > 120 && r > g * 2 && r > b * 2, `the back shows the artwork: ${[r, g, b]}`);
    const [pr, pg, pb] = px(100, 450);
    assert.ok(Math.abs(pr - pg) < 40 && pb > 150, `the photo around it: ${[pr, pg, pb]}`);
  });

  it("labels a product's mockups by what they show: the photo scene as photo, each stage view once as 3d", async () => {
    const d = seeded(t);
    const r = t.seed.rendering!;
    const studio = STAGES.find((st) => st.key === 'studio')!;
    for (const [px, format] of [
      [1000, 'webp'],
      [2000, 'png'],
    ] as const) {
      const perspective = r.perspectives[stagePerspectiveKey('studio', studio.views[0].key, px, format)];
      const res = await call(
        t,
        'GET',
        `/v2/lookup-composition?sceneReference=${r.scenes[stageSceneKey('studio')]}&productReference=${d.ip15}&perspectiveReference=${perspective}`,
      );
      assert.equal(res.statusCode, 200, res.body);
    }
    const mockups = await t.s.rendering.productMockups(t.seed.organizations[0].reference, d.ip15);
    // The partner's own photo first, then the stage's view once (two sizes of it show nothing new).
    assert.deepEqual(
      mockups.map((m) => [m.kind, m.scene, m.perspective]),
      [
        ['photo', 'Our shop counter', 'Our shop counter, 1000 px WEBP'],
        ['3d', studio.name, `${studio.name}, ${studio.views[0].name}, 1000 px WEBP`],
      ],
    );
  });

  it('refuses corners that cross, turn inwards or lie outside the photo, and a photo too small, writing nothing', async () => {
    const crossed = await create(t, photo, {
      ...CORNERS,
      topRight: CORNERS.bottomRight,
      bottomRight: CORNERS.topRight,
    });
    assert.equal(crossed.statusCode, 400, crossed.body);
    assert.equal(crossed.data.code, 'photo_scene_corners_invalid');
    assert.match(crossed.data.message, /convex/);
    const dented = await create(t, photo, { ...CORNERS, bottomRight: { x: 560, y: 300 } });
    assert.equal(dented.data.code, 'photo_scene_corners_invalid');
    const outside = await create(t, photo, { ...CORNERS, topRight: { x: 1250, y: 215 } });
    assert.equal(outside.statusCode, 400, outside.body);
    assert.equal(outside.data.code, 'photo_scene_corners_outside');
    assert.match(outside.data.message, /topRight .* outside the 1200x900 photo/);
    const small = await upload(
      t,
      await sharp({ create: { width: 600, height: 800, channels: 3, background: '#888' } })
        .png()
        .toBuffer(),
    );
    const tooSmall = await create(t, small.data.image.reference, {
      topLeft: { x: 100, y: 100 },
      topRight: { x: 300, y: 100 },
      bottomRight: { x: 300, y: 500 },
      bottomLeft: { x: 100, y: 500 },
    });
    assert.equal(tooSmall.statusCode, 400, tooSmall.body);
    assert.equal(tooSmall.data.code, 'photo_scene_photo_too_small');
    const missing = await create(t, photo, { topLeft: CORNERS.topLeft });
    assert.equal(missing.statusCode, 400, missing.body);
    const listed = await call(t, 'GET', '/v2/photo-scenes');
    assert.equal(listed.data.photoScenes.length, 1);
  });

  it('refuses a photo over the upload limit as every image is (413), so no scene can name it', async () => {
    const noise = await sharp(randomBytes(1100 * 900 * 3), { raw: { width: 1100, height: 900, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    assert.ok(noise.length > LIMIT);
    const res = await upload(t, noise);
    assert.equal(res.statusCode, 413, res.body);
    assert.equal(res.data.code, 'payload_too_large');
  });

  it('is invisible and unusable for another organization (404)', async () => {
    const d = seeded(t);
    for (const url of [
      `/v2/photo-scenes/${scene.reference}`,
      `/v2/scenes/${scene.reference}`,
      `/v2/lookup-composition?sceneReference=${scene.reference}&productReference=${d.ip15}&perspectiveReference=${scene.perspectives[0].reference}`,
    ]) {
      const res = await call(t, 'GET', url, { key: t.otherKey });
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
    const del = await call(t, 'DELETE', `/v2/photo-scenes/${scene.reference}`, { key: t.otherKey });
    assert.equal(del.statusCode, 404);
    assert.equal((await call(t, 'GET', '/v2/photo-scenes', { key: t.otherKey })).data.photoScenes.length, 0);
    // Nor can it make a scene of this organization's photo.
    const theirs = await create(t, photo, CORNERS, t.otherKey);
    assert.equal(theirs.statusCode, 404, theirs.body);
  });

  it('deletes a scene: gone from every list and lookup, its compositions no longer render', async () => {
    const d = seeded(t);
    const perspective = scene.perspectives[0].reference;
    const lookup = `/v2/lookup-composition?sceneReference=${scene.reference}&productReference=${d.ip15}&perspectiveReference=${perspective}`;
    const composition = (await call(t, 'GET', lookup)).data.composition.reference;
    const del = await call(t, 'DELETE', `/v2/photo-scenes/${scene.reference}`);
    assert.equal(del.statusCode, 200, del.body);
    assert.deepEqual(del.data.photoScene, { reference: scene.reference, deleted: true });
    for (const url of [`/v2/photo-scenes/${scene.reference}`, `/v2/scenes/${scene.reference}`, lookup])
      assert.equal((await call(t, 'GET', url)).statusCode, 404, url);
    assert.equal((await call(t, 'GET', '/v2/photo-scenes')).data.photoScenes.length, 0);
    const scenes = (await call(t, 'GET', '/v2/scenes')).data.scenes.map((s: any) => s.reference);
    assert.ok(!scenes.includes(scene.reference));
    const render = await call(t, 'POST', '/v2/renders', {
      body: { render: { compositionReference: composition, imageReference: photo } },
    });
    assert.equal(render.statusCode, 404, render.body);
    assert.equal((await call(t, 'DELETE', `/v2/photo-scenes/${scene.reference}`)).statusCode, 404);
  });

  it('offers 1000 px perspectives in WebP, JPEG and PNG, and 2000 px ones when the photo is that large', async () => {
    const big = await sharp({ create: { width: 2400, height: 1800, channels: 3, background: '#b9a58a' } })
      .jpeg()
      .toBuffer();
    const res = await create(t, (await upload(t, big)).data.image.reference, {
      topLeft: { x: 1000, y: 500 },
      topRight: { x: 1400, y: 520 },
      bottomRight: { x: 1380, y: 1300 },
      bottomLeft: { x: 950, y: 1280 },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.data.photoScene.perspectives.map((p: any) => p.output),
      [
        { widthPx: 1000, heightPx: 750, format: 'webp' },
        { widthPx: 1000, heightPx: 750, format: 'jpeg' },
        { widthPx: 1000, heightPx: 750, format: 'png' },
        { widthPx: 2000, heightPx: 1500, format: 'webp' },
        { widthPx: 2000, heightPx: 1500, format: 'jpeg' },
        { widthPx: 2000, heightPx: 1500, format: 'png' },
      ],
    );
    const d = seeded(t);
    const look = await call(
      t,
      'GET',
      `/v2/lookup-composition?sceneReference=${res.data.photoScene.reference}&productReference=${d.ip15}&perspectiveReference=${res.data.photoScene.perspectives[3].reference}`,
    );
    assert.equal(look.data.composition.tokenCost, 4);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { thumbHashToRGBA } from 'thumbhash';
import { jobsRepo } from '../../src/platform/jobs/queue.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createRender, near, pixel, seeded, uploadSolid } from './helpers.ts';

const RED = { r: 208, g: 16, b: 32 };

describe('renders', () => {
  let t: TestApp;
  let d: ReturnType<typeof seeded>;
  before(async () => {
    t = await createTestApp();
    d = seeded(t);
  });
  after(() => t.close());

  it('renders the partner image into the print area of the scene, in the perspective’s size and format', async () => {
    const image = await uploadSolid(t, RED);
    const created = await createRender(t, d.cStudioIp15, image);
    assert.equal(created.statusCode, 200, created.body);
    const ref = created.data.render.reference;
    assert.match(ref, /^Render_[0-9a-hjkmnp-tv-z]{26}$/);

    const pending = await call(t, 'GET', `/v2/renders/${ref}`);
    assert.equal(pending.statusCode, 200);
    assert.equal(pending.data.render.status, 'pending');
    assert.equal(pending.data.render.thumbhash, null);
    assert.equal(pending.data.render.media, null);
    assert.equal(pending.data.render.completed, null);
    assert.equal(pending.data.render.compositionReference, d.cStudioIp15);
    assert.equal(pending.data.render.imageReference, image);
    for (const file of ['media', 'thumbnail']) {
      const wait = await call(t, 'GET', `/v2/renders/${ref}/${file}`);
      assert.equal(wait.statusCode, 202);
      assert.equal(wait.headers['retry-after'], '60');
      assert.equal(wait.data.render.status, 'pending');
      assert.match(String(wait.headers['x-ratelimit-policy']), /"downloads"/);
    }

    t.clock.advance(5000);
    assert.equal(await t.s.worker.drain(), 1);
    const done = (await call(t, 'GET', `/v2/renders/${ref}`)).data.render;
    assert.equal(done.status, 'completed');
    assert.equal(done.completed, t.clock.now().toISOString());
    assert.ok(Date.parse(done.created) < Date.parse(done.completed));
    assert.equal(done.failureReason, null);
    assert.deepEqual(Object.keys(done.media).sort(), ['extension', 'mimeType', 'size']);
    assert.equal(done.media.mimeType, 'image/webp');
    assert.equal(done.media.extension, 'webp');
    assert.equal(done.thumbnail.mimeType, 'image/webp');
    const hash = Buffer.from(done.thumbhash, 'base64');
    assert.ok(hash.length >= 5);
    const preview = thumbHashToRGBA(hash);
    assert.ok(preview.w > preview.h, 'thumbhash keeps the landscape aspect');

    const media = await call(t, 'GET', `/v2/renders/${ref}/media`);
    assert.equal(media.statusCode, 200);
    assert.equal(media.headers['cache-control'], 'private, max-age=31536000, immutable');
    assert.equal(media.headers['content-type'], 'image/webp');
    assert.match(String(media.headers['x-ratelimit-policy']), /"downloads";q=\d+;w=\d+/);
    const bytes = media.rawPayload;
    assert.equal(bytes.length, done.media.size);
    const meta = await sharp(bytes).metadata();
    assert.equal(meta.format, 'webp');
    assert.equal(meta.width, 800);
    assert.equal(meta.height, 600);
    // The straight-on template centres the case: the middle of the 800x600 output is on its back.
    assert.ok(
      near(await pixel(bytes, 410, 270), [RED.r, RED.g, RED.b], 30),
      `centre is ${await pixel(bytes, 410, 270)}`,
    );
    assert.ok(!near(await pixel(bytes, 60, 60), [RED.r, RED.g, RED.b], 60), 'the backdrop is not the partner colour');
    assert.ok(!near(await pixel(bytes, 700, 500), [RED.r, RED.g, RED.b], 60), 'the desk is not the partner colour');

    const thumb = await call(t, 'GET', `/v2/renders/${ref}/thumbnail`);
    assert.equal(thumb.statusCode, 200);
    assert.equal(thumb.headers['cache-control'], 'private, max-age=31536000, immutable');
    const tmeta = await sharp(thumb.rawPayload).metadata();
    assert.equal(tmeta.format, 'webp');
    assert.equal(tmeta.width, 256);
    assert.equal(thumb.rawPayload.length, done.thumbnail.size);
  });

  it('renders jpeg and png perspectives (product perspective included)', async () => {
    const image = await uploadSolid(t, { r: 20, g: 90, b: 220 });
    const marble = (await createRender(t, d.cMarbleIp15, image)).data.render.reference;
    const closeup = (await createRender(t, d.cCloseup, image)).data.render.reference;
    await t.s.worker.drain();
    const m = await call(t, 'GET', `/v2/renders/${marble}/media`);
    assert.equal(m.headers['content-type'], 'image/jpeg');
    const mm = await sharp(m.rawPayload).metadata();
    assert.deepEqual([mm.format, mm.width, mm.height], ['jpeg', 600, 800]);
    assert.ok(near(await pixel(m.rawPayload, 300, 380), [20, 90, 220], 30));
    const c = await call(t, 'GET', `/v2/renders/${closeup}/media`);
    const cm = await sharp(c.rawPayload).metadata();
    assert.deepEqual([cm.format, cm.width, cm.height], ['png', 512, 512]);
    assert.ok(near(await pixel(c.rawPayload, 256, 256), [20, 90, 220], 30));
    const info = (await call(t, 'GET', `/v2/renders/${closeup}`)).data.render;
    assert.deepEqual([info.media.mimeType, info.media.extension], ['image/png', 'png']);
    assert.equal((await call(t, 'GET', `/v2/renders/${marble}`)).data.render.media.extension, 'jpg');
  });

  it('returns the existing render for the same composition and image, and deducts on every call', async () => {
    const image = await uploadSolid(t, { r: 0, g: 160, b: 60 });
    const before = (await call(t, 'GET', '/v2/rendertokens')).data.rendertokens;
    const first = await createRender(t, d.cStudioS24, image);
    const second = await createRender(t, d.cStudioS24, image);
    assert.equal(second.statusCode, 200);
    assert.equal(second.data.render.reference, first.data.render.reference);
    const afterTwo = (await call(t, 'GET', '/v2/rendertokens')).data.rendertokens;
    assert.equal(afterTwo.used, before.used + 4);
    assert.equal(afterTwo.remaining, afterTwo.limit - afterTwo.used);
    const jobs = await jobsRepo.list(t.db, { kind: 'rendering.render', status: 'pending', limit: 50 });
    assert.equal(jobs.filter((j) => j.payload.renderId === first.data.render.reference).length, 1);
    // A different image is a different render.
    const other = await createRender(t, d.cStudioS24, await uploadSolid(t, { r: 1, g: 2, b: 3 }));
    assert.notEqual(other.data.render.reference, first.data.render.reference);
    await t.s.worker.drain();
  });

  it('rejects unknown, foreign and retired inputs without deducting', async () => {
    const image = await uploadSolid(t, RED);
    const foreignImage = await uploadSolid(t, RED, t.otherKey);
    const used = async () => (await call(t, 'GET', '/v2/rendertokens')).data.rendertokens.used;
    const start = await used();
    const cases: Array<[string, string, number, string]> = [
      [d.cRetired, image, 410, 'composition_unavailable'],
      ['Composition_0123456789abcdefghjkmnpqrs', image, 404, 'not_found'],
      [d.cStudioIp15, 'Image_0123456789abcdefghjkmnpqrs', 404, 'not_found'],
      [d.cStudioIp15, foreignImage, 404, 'not_found'],
      [d.cStudioIp15, 'garbage', 404, 'not_found'],
    ];
    for (const [c, i, status, code] of cases) {
      const res = await createRender(t, c, i);
      assert.equal(res.statusCode, status, `${c} ${i}`);
      assert.equal(res.data.code, code);
    }
    // The private marble scene is invisible to the other organization.
    const hidden = await createRender(t, d.cMarbleIp15, foreignImage, t.otherKey);
    assert.equal(hidden.statusCode, 404);
    assert.equal(await used(), start);

    const extra = await call(t, 'POST', '/v2/renders', {
      body: { render: { compositionReference: d.cStudioIp15, imageReference: image, colour: 'red' } },
    });
    assert.equal(extra.statusCode, 400);
    assert.match(extra.data.message, /colour/);
    const missing = await call(t, 'POST', '/v2/renders', { body: { render: { compositionReference: d.cStudioIp15 } } });
    assert.equal(missing.statusCode, 400);
    const readOnly = await createRender(t, d.cStudioIp15, image, t.readOnlyKey);
    assert.equal(readOnly.statusCode, 403);
    assert.equal(await used(), start);
  });

  it('hides renders of other organizations', async () => {
    const image = await uploadSolid(t, { r: 90, g: 90, b: 10 });
    const ref = (await createRender(t, d.cStudioIp15, image)).data.render.reference;
    for (const url of [`/v2/renders/${ref}`, `/v2/renders/${ref}/media`, `/v2/renders/${ref}/thumbnail`]) {
      const res = await call(t, 'GET', url, { key: t.otherKey });
      assert.equal(res.statusCode, 404, url);
    }
    assert.equal((await call(t, 'GET', '/v2/renders/Render_nope')).statusCode, 404);
    await t.s.worker.drain();
  });

  it('ends failed with a reason when the image no longer decodes; downloads are 409 render_failed', async () => {
    const image = await uploadSolid(t, { r: 3, g: 3, b: 3 });
    const ref = (await createRender(t, d.cStudioIp15, image)).data.render.reference;
    const handle = await t.s.images.imageForOrganization(t.seed.organizations[0].reference, image);
    await t.s.blobs.put(handle!.blobKey, Buffer.from('this is not an image any more'));
    await t.s.worker.drain();
    const r = (await call(t, 'GET', `/v2/renders/${ref}`)).data.render;
    assert.equal(r.status, 'failed');
    assert.match(r.failureReason, /image does not decode/);
    assert.equal(r.thumbhash, null);
    assert.equal(r.media, null);
    for (const file of ['media', 'thumbnail']) {
      const res = await call(t, 'GET', `/v2/renders/${ref}/${file}`);
      assert.equal(res.statusCode, 409);
      assert.equal(res.data.code, 'render_failed');
    }
    const jobs = await jobsRepo.list(t.db, { kind: 'rendering.render', limit: 100 });
    assert.equal(jobs.find((j) => j.payload.renderId === ref)!.status, 'succeeded', 'no pointless retries');
    const events = await t.db.query(`SELECT type, data FROM events WHERE type = 'render.failed'`);
    assert.equal(events.find((e) => e.data.render.reference === ref)?.data.render.status, 'failed');
  });

  it('ends failed when a template asset is missing', async () => {
    const image = await uploadSolid(t, { r: 4, g: 4, b: 4 });
    const ref = (await createRender(t, d.cStudioS24, image)).data.render.reference;
    // The composition's template is a UV-mapped one whose pictures are not in the blob store.
    const [was] = await t.db.query<{ background_blob_key: string; generator: unknown }>(
      'SELECT background_blob_key, generator FROM compositions WHERE id = $1',
      [d.cStudioS24],
    );
    const set = (background: string, uv: string | null, generator: unknown) =>
      t.db.query(
        'UPDATE compositions SET background_blob_key = $2, uv_blob_key = $3, layers_blob_key = $3, generator = $4 WHERE id = $1',
        [d.cStudioS24, background, uv, generator === null ? null : JSON.stringify(generator)],
      );
    await set('rendering/templates/nowhere.png', 'rendering/templates/nowhere-uv.png', null);
    try {
      await t.s.worker.drain();
      // A live preview of it says the composition cannot be rendered, not a server error.
      const preview = await call(t, 'POST', '/v2/renders/preview', {
        body: { preview: { compositionReference: d.cStudioS24, imageReference: image } },
      });
      assert.equal(preview.statusCode, 410);
      assert.equal(preview.data.code, 'composition_unavailable');
      assert.match(preview.data.message, /template asset missing: background \(rendering\/templates\/nowhere.png\)/);
    } finally {
      await set(was.background_blob_key, null, was.generator);
    }
    const r = (await call(t, 'GET', `/v2/renders/${ref}`)).data.render;
    assert.equal(r.status, 'failed');
    assert.match(r.failureReason, /template asset missing: background \(rendering\/templates\/nowhere.png\)/);

    // The asset is back: asking for the same render again renders it again (and deducts again).
    const before = (await call(t, 'GET', '/v2/rendertokens')).data.rendertokens.used;
    const again = await createRender(t, d.cStudioS24, image);
    assert.equal(again.data.render.reference, ref);
    assert.equal((await call(t, 'GET', `/v2/renders/${ref}`)).data.render.status, 'pending');
    assert.ok((await call(t, 'GET', '/v2/rendertokens')).data.rendertokens.used > before);
    await t.s.worker.drain();
    const done = (await call(t, 'GET', `/v2/renders/${ref}`)).data.render;
    assert.equal(done.status, 'completed');
    assert.equal(done.failureReason, null);
  });

  it('retries a transient failure and fails the render only when the attempts run out', async () => {
    const image = await uploadSolid(t, { r: 7, g: 7, b: 7 });
    const ref = (await createRender(t, d.cStudioIp15, image)).data.render.reference;
    await t.db.query(`UPDATE jobs SET max_attempts = 2 WHERE kind = 'rendering.render' AND payload->>'renderId' = $1`, [
      ref,
    ]);
    const original = t.s.images.readImage;
    t.s.images.readImage = async () => {
      throw new Error('storage temporarily unreachable');
    };
    try {
      assert.equal(await t.s.worker.drain(), 1);
      assert.equal(
        (await call(t, 'GET', `/v2/renders/${ref}`)).data.render.status,
        'pending',
        'still pending after one failed attempt',
      );
      t.clock.advance(3600_000);
      assert.equal(await t.s.worker.drain(), 1);
    } finally {
      t.s.images.readImage = original;
    }
    const r = (await call(t, 'GET', `/v2/renders/${ref}`)).data.render;
    assert.equal(r.status, 'failed');
    assert.match(r.failureReason, /gave up after 2 attempts: storage temporarily unreachable/);
  });

  it('a render whose worker died stays pending and completes after the lease runs out', async () => {
    const image = await uploadSolid(t, { r: 200, g: 180, b: 0 });
    const ref = (await createRender(t, d.cStudioIp15, image)).data.render.reference;
    // A worker claims the job and dies before finishing it.
    const claimed = await jobsRepo.claim(t.db, 'dead-worker', ['rendering.render'], t.clock.now(), [60_000], 10);
    assert.equal(claimed.length, 1);
    assert.equal(await t.s.worker.drain(), 0, 'the lease still holds');
    assert.equal((await call(t, 'GET', `/v2/renders/${ref}`)).data.render.status, 'pending');
    t.clock.advance(61_000);
    assert.equal(await t.s.worker.drain(), 1);
    assert.equal((await call(t, 'GET', `/v2/renders/${ref}`)).data.render.status, 'completed');
  });
});

describe("the demo compositions use their own product's template", () => {
  let t: TestApp;
  let d: ReturnType<typeof seeded>;
  before(async () => {
    t = await createTestApp();
    d = seeded(t);
  });
  after(() => t.close());

  it('draws the Galaxy S24 with its own camera cut-out, not the iPhone 15 one', async () => {
    const image = await uploadSolid(t, { r: 230, g: 20, b: 20 });
    const s24 = (await createRender(t, d.cStudioS24, image)).data.render.reference;
    const ip15 = (await createRender(t, d.cStudioIp15, image)).data.render.reference;
    await t.s.worker.drain();
    const raw = async (ref: string) =>
      sharp((await call(t, 'GET', `/v2/renders/${ref}/media`)).rawPayload)
        .removeAlpha()
        .raw()
        .toBuffer();
    const [a, b] = [await raw(s24), await raw(ip15)];
    const red = (img: Buffer, x: number, y: number) =>
      near([...img.subarray((y * 800 + x) * 3, (y * 800 + x) * 3 + 3)], [230, 20, 20], 40);
    // The iPhone 15's square island sits top left; the Galaxy S24's lenses run down the left edge,
    // so hundreds of pixels of the back are red on one and not on the other.
    let differ = 0;
    for (let y = 0; y < 600; y += 2) for (let x = 0; x < 800; x += 2) if (red(a, x, y) !== red(b, x, y)) differ++;
    assert.ok(differ > 300, `the two backs differ in ${differ} sampled pixels`);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { expectError } from '../orders/helpers.ts';
import { seeded, uploadSolid } from '../rendering/helpers.ts';

const preview = (t: TestApp, compositionReference: string, imageReference: string, key = t.key) =>
  call(t, 'POST', '/v2/renders/preview', { key, body: { preview: { compositionReference, imageReference } } });

describe('live render previews', () => {
  let t: TestApp;
  let d: ReturnType<typeof seeded>;
  let image: string;
  before(async () => {
    t = await createTestApp({ env: { RATE_LIMITS: 'previews=8/3600' } });
    d = seeded(t);
    image = await uploadSolid(t, { r: 200, g: 30, b: 60 });
  });
  after(() => t.close());

  it('answers the image itself, at most 600 px, and stores nothing', async () => {
    const tokens = (await call(t, 'GET', '/v2/rendertokens')).data.rendertokens;
    const renders = (await call(t, 'GET', '/v2/renders?limit=100')).data.renders.length;
    const res = await preview(t, d.cStudioIp15, image);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^image\/(png|jpeg|webp)/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const meta = await sharp(res.rawPayload).metadata();
    assert.ok(Math.max(meta.width!, meta.height!) <= 600, `${meta.width}x${meta.height}`);
    assert.ok(Math.max(meta.width!, meta.height!) >= 300, 'not a thumbnail');
    assert.equal(`image/${meta.format}`, String(res.headers['content-type']).split(';')[0]);
    const stats = await sharp(res.rawPayload).stats();
    assert.ok(stats.channels[0].max > 150, 'the artwork shows');
    assert.deepEqual((await call(t, 'GET', '/v2/rendertokens')).data.rendertokens, tokens, 'no tokens spent');
    assert.equal((await call(t, 'GET', '/v2/renders?limit=100')).data.renders.length, renders, 'no render kept');
    assert.match(String(res.headers['x-ratelimit']), /"previews";r=\d+/);
  });

  it('refuses what a render refuses, with the same codes', async () => {
    expectError(await preview(t, 'Composition_0123456789abcdefghjkmnpqrs', image), 404, 'not_found');
    expectError(await preview(t, d.cStudioIp15, 'Image_0123456789abcdefghjkmnpqrs'), 404, 'not_found');
    const foreign = await uploadSolid(t, { r: 1, g: 2, b: 3 }, t.otherKey);
    expectError(await preview(t, d.cStudioIp15, foreign), 404, 'not_found');
    expectError(await preview(t, d.cRetired, image), 410, 'composition_unavailable');
    const bad = await call(t, 'POST', '/v2/renders/preview', {
      body: { preview: { compositionReference: d.cStudioIp15, imageReference: image, size: 2000 } },
    });
    expectError(bad, 400, 'invalid_request');
  });

  it('has its own rate-limit bucket', async () => {
    let last = await preview(t, d.cStudioIp15, image);
    for (let i = 0; i < 8 && last.statusCode === 200; i++) last = await preview(t, d.cStudioIp15, image);
    expectError(last, 429, 'rate_limited');
    assert.ok(Number(last.headers['retry-after']) > 0);
    const other = await uploadSolid(t, { r: 9, g: 9, b: 9 }, t.otherKey);
    const otherOrg = await preview(t, d.cStudioIp15, other, t.otherKey);
    assert.notEqual(otherOrg.statusCode, 429, "another organization's bucket is its own");
  });
});

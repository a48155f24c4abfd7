import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

describe('catalog: product media files', () => {
  let t: TestApp;
  let detail: any;
  const path = (filename: string) => `/v2/products/${detail.reference}/media/${filename}`;
  before(async () => {
    t = await createTestApp();
    const ref = t.seed.organizations[0].products!.find((p) => p.name === 'iPhone 15 Clear Case')!.reference;
    detail = (await call(t, 'GET', `/v2/products/${ref}`)).data.product;
  });
  after(() => t.close());

  it('serves an example image with ETag and Last-Modified, and answers 304 to a match', async () => {
    const res = await call(t, 'GET', path('front.png'));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/png');
    const meta = await sharp(res.rawPayload).metadata();
    assert.equal(meta.format, 'png');
    assert.equal(meta.width, 1000);
    const etag = res.headers.etag as string;
    const lastModified = res.headers['last-modified'] as string;
    assert.match(etag, /^"[0-9a-f]{32}"$/);
    assert.equal(lastModified, new Date('2023-05-25T09:00:00Z').toUTCString());
    assert.equal(res.headers['cache-control'], 'private, no-cache');

    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const r = await call(t, 'GET', path('front.png'), { headers: { 'if-none-match': inm } });
      assert.equal(r.statusCode, 304, inm);
      assert.equal(r.body, '');
      assert.equal(r.headers.etag, etag);
    }
    assert.equal(
      (await call(t, 'GET', path('front.png'), { headers: { 'if-modified-since': lastModified } })).statusCode,
      304,
    );
    assert.equal(
      (await call(t, 'GET', path('front.png'), { headers: { 'if-modified-since': new Date().toUTCString() } }))
        .statusCode,
      304,
    );
    const older = await call(t, 'GET', path('front.png'), {
      headers: { 'if-modified-since': new Date('2023-05-24T00:00:00Z').toUTCString() },
    });
    assert.equal(older.statusCode, 200);
    const stale = await call(t, 'GET', path('front.png'), {
      headers: { 'if-none-match': '"nope"', 'if-modified-since': lastModified },
    });
    assert.equal(stale.statusCode, 200, 'If-None-Match decides when both are sent');
    assert.equal(
      (await call(t, 'GET', path('front.png'), { headers: { 'if-modified-since': 'not a date' } })).statusCode,
      200,
    );
  });

  it('serves example renders as immutable', async () => {
    const render = detail.media.find((m: any) => m.kind === 'example_render');
    const res = await call(t, 'GET', path(render.filename));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'private, max-age=31536000, immutable');
    assert.equal(res.headers['content-type'], 'image/jpeg');
    assert.equal((await sharp(res.rawPayload).metadata()).format, 'jpeg');
    assert.equal(Number(res.headers['content-length']), render.size);
  });

  it('serves layer images from their URLs with conditional GETs', async () => {
    const layer = detail.layers.images[0];
    const url = new URL(layer.url);
    const res = await call(t, 'GET', url.pathname);
    assert.equal(res.statusCode, 200);
    assert.ok(res.headers.etag);
    assert.ok(res.headers['last-modified']);
    // The print-area layer of the iPhone 15 clear case: its flat back inside the clear rim, 67.6 mm wide at 4 px/mm.
    assert.equal((await sharp(res.rawPayload).metadata()).width, 270);
    const again = await call(t, 'GET', url.pathname, { headers: { 'if-none-match': res.headers.etag as string } });
    assert.equal(again.statusCode, 304);
    const since = await call(t, 'GET', url.pathname, {
      headers: { 'if-modified-since': res.headers['last-modified'] as string },
    });
    assert.equal(since.statusCode, 304);
  });

  it('answers 404 for unknown files and products', async () => {
    for (const name of ['nope.png', 'front.jpg', '..%2F..%2Fsecret-key', 'layer-print-area.jpg']) {
      const res = await call(t, 'GET', path(name));
      assert.equal(res.statusCode, 404, name);
      assert.equal(res.data.code, 'not_found');
    }
    assert.equal((await call(t, 'GET', '/v2/products/Product_nope/media/front.png')).statusCode, 404);
  });

  it('draws from the downloads bucket as well as default', async () => {
    const media = await call(t, 'GET', path('front.png'));
    const policy = media.headers['x-ratelimit-policy'] as string;
    assert.match(policy, /"default";q=\d+;w=\d+/);
    assert.match(policy, /"downloads";q=100000;w=86400/);
    assert.match(media.headers['x-ratelimit'] as string, /"downloads";r=\d+;t=\d+/);
    const list = await call(t, 'GET', '/v2/products');
    assert.doesNotMatch(list.headers['x-ratelimit-policy'] as string, /downloads/);
  });

  it('refuses downloads with 429 when the downloads bucket is empty, while other requests go on', async () => {
    const orgRef = t.seed.organizations[0].reference;
    const set = await operator(t, 'PUT', `/organizations/${orgRef}/rate-limits`, {
      downloads: { quota: 2, windowSeconds: 86400 },
    });
    assert.equal(set.statusCode, 200);
    try {
      assert.equal((await call(t, 'GET', path('front.png'))).statusCode, 200);
      assert.equal((await call(t, 'GET', path('front.png'))).statusCode, 200);
      const refused = await call(t, 'GET', path('front.png'));
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.data.code, 'rate_limited');
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.match(refused.headers['x-ratelimit-policy'] as string, /"downloads";q=2;w=86400/);
      assert.equal((await call(t, 'GET', '/v2/products')).statusCode, 200);
    } finally {
      await operator(t, 'PUT', `/organizations/${orgRef}/rate-limits`, null);
    }
  });
});

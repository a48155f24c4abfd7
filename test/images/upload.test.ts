import assert from 'node:assert/strict';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { bombPng, gif, jpeg, png, upload, uploadChunked } from './fixtures.ts';

const REF = /^Image_[0-9a-hjkmnp-tv-z]{26}$/;

/** A real HTTP upload of `size` bytes in 64 KB writes; resolves with the answer and how much was sent. */
function sendOverSocket(
  port: number,
  key: string,
  size: number,
  chunked: boolean,
): Promise<{ status: number; code: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-service-secret-key': key, 'content-type': 'application/octet-stream' };
    if (!chunked) headers['content-length'] = String(size);
    let sent = 0;
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v2/images', headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: JSON.parse(body).code, sent }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(64 * 1024, 1);
    const pump = () => {
      while (sent < size && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('POST /v2/images: formats and decoding', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('accepts a JPEG and describes it', async () => {
    const bytes = await jpeg(320, 200);
    const res = await upload(t, bytes);
    assert.equal(res.statusCode, 200, res.body);
    const img = res.data.image;
    assert.match(img.reference, REF);
    assert.equal(img.format, 'jpeg');
    assert.equal(img.width, 320);
    assert.equal(img.height, 200);
    assert.equal(img.size, bytes.length);
    assert.equal(img.created, t.clock.now().toISOString());
    assert.equal(img.originalWidth, undefined);
    assert.equal(img.originalHeight, undefined);
  });

  it('accepts a PNG and stores its exact bytes', async () => {
    const bytes = await png(120, 90);
    const res = await upload(t, bytes);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.image.format, 'png');
    assert.equal(res.data.image.width, 120);
    const handle = await t.s.images.imageForOrganization(t.seed.organizations[0].reference, res.data.image.reference);
    assert.ok(handle);
    assert.deepEqual(await t.s.images.readImage(handle.blobKey), bytes);
  });

  it('judges the format by the bytes, not by a file name or header', async () => {
    // A JPEG sent as ".png" is still a JPEG.
    const res = await upload(t, await jpeg(50, 40, 7), {
      headers: { 'content-disposition': 'attachment; filename="photo.png"' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.data.image.format, 'jpeg');
  });

  const refusals: Array<[string, () => Promise<Buffer>, RegExp]> = [
    ['a GIF', gif, /only JPEG and PNG/],
    [
      'a text file renamed .png',
      async () => Buffer.from('this is just text, saved as picture.png\n'),
      /only JPEG and PNG/,
    ],
    [
      'an SVG',
      async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
      /only JPEG and PNG/,
    ],
    [
      'a WebP',
      () =>
        sharp({ create: { width: 10, height: 10, channels: 3, background: '#fff' } })
          .webp()
          .toBuffer(),
      /only JPEG and PNG/,
    ],
    [
      'a truncated JPEG',
      async () => {
        const b = await jpeg(640, 480);
        return b.subarray(0, Math.floor(b.length / 2));
      },
      /JPEG image is truncated or corrupt/,
    ],
    [
      'a truncated PNG',
      async () => {
        const b = await png(640, 480, 3);
        return b.subarray(0, b.length - 30);
      },
      /PNG image is truncated or corrupt/,
    ],
    ['a PNG cut inside its header', async () => (await png(64, 64)).subarray(0, 20), /PNG header is damaged/],
    [
      'a JPEG signature followed by garbage',
      async () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 7)]),
      /JPEG/,
    ],
    ['an empty body', async () => Buffer.alloc(0), /body is empty/],
  ];
  for (const [name, make, message] of refusals) {
    it(`refuses ${name} with 400 invalid_image`, async () => {
      const res = await upload(t, await make());
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.data.code, 'invalid_image');
      assert.match(res.data.message, message);
    });
  }

  it('refuses a decompression bomb from its header, fast', async () => {
    const bomb = await bombPng(100_000);
    assert.ok(bomb.length < 10_000);
    const started = performance.now();
    const res = await upload(t, bomb);
    const ms = performance.now() - started;
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.data.code, 'invalid_image');
    assert.match(res.data.message, /100000x100000 pixels/);
    assert.ok(ms < 2000, `took ${ms} ms`);
  });

  it('stores nothing for a refused upload', async () => {
    const before = (await call(t, 'GET', '/v2/images?limit=100')).data.images.length;
    await upload(t, await gif());
    const after = (await call(t, 'GET', '/v2/images?limit=100')).data.images.length;
    assert.equal(after, before);
  });

  it('downsizes a 7500x7500 PNG to 7000x7000 without blocking the event loop', async () => {
    const big = await sharp({ create: { width: 7500, height: 7500, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const res = await upload(t, big);
    const ms = performance.now() - started;
    delay.disable();
    assert.equal(res.statusCode, 200, res.body);
    const img = res.data.image;
    assert.equal(img.width, 7000);
    assert.equal(img.height, 7000);
    assert.equal(img.originalWidth, 7500);
    assert.equal(img.originalHeight, 7500);
    assert.equal(img.format, 'png');
    const handle = await t.s.images.imageForOrganization(t.seed.organizations[0].reference, img.reference);
    const stored = await t.s.images.readImage(handle!.blobKey);
    assert.equal(stored!.length, img.size);
    const meta = await sharp(stored!).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 7000, 7000]);
    // Decoding and resizing ran in sharp's thread pool: the loop never stalled for the whole upload.
    const maxStallMs = delay.max / 1e6;
    assert.ok(maxStallMs < Math.max(300, ms / 2), `event loop stalled ${maxStallMs} ms during a ${ms} ms upload`);
  });

  it('keeps the aspect ratio when downsizing a wide JPEG', async () => {
    const res = await upload(t, await jpeg(7700, 1100, 9));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.data.image.width, res.data.image.height], [7000, 1000]);
    assert.deepEqual([res.data.image.originalWidth, res.data.image.originalHeight], [7700, 1100]);
    assert.equal(res.data.image.format, 'jpeg');
  });

  it('leaves an image of exactly 7000 pixels alone', async () => {
    const res = await upload(t, await jpeg(7000, 300, 11));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.data.image.width, res.data.image.height], [7000, 300]);
    assert.equal(res.data.image.originalWidth, undefined);
  });
});

describe('POST /v2/images: content type and size limit', () => {
  const LIMIT = 200_000;
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { UPLOAD_LIMIT_BYTES: String(LIMIT) } });
  });
  after(() => t.close());

  for (const type of ['application/json', 'image/png', 'image/jpeg', 'text/plain', 'multipart/form-data; boundary=x']) {
    it(`answers 415 to Content-Type ${type}`, async () => {
      const res = await call(t, 'POST', '/v2/images', {
        payload: await png(10, 10),
        headers: { 'content-type': type },
      });
      assert.equal(res.statusCode, 415, res.body);
      assert.equal(res.data.code, 'unsupported_media_type');
      assert.match(res.data.message, /application\/octet-stream/);
    });
  }

  it('answers 415 without a Content-Type', async () => {
    const res = await call(t, 'POST', '/v2/images', { payload: await png(10, 10) });
    assert.equal(res.statusCode, 415);
    assert.match(res.data.message, /missing/);
  });

  it('accepts parameters on the octet-stream type', async () => {
    const res = await upload(t, await png(12, 12), {
      headers: { 'content-type': 'Application/Octet-Stream; charset=binary' },
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  it('keeps JSON endpoints refusing octet-stream (the parser is scoped to uploads)', async () => {
    const res = await call(t, 'POST', '/v2/auth/validate', {
      payload: Buffer.from('abc'),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(res.statusCode, 415, res.body);
    assert.equal(res.data.code, 'unsupported_media_type');
  });

  it('refuses a body over the limit from Content-Length, naming the limit', async () => {
    const res = await upload(t, Buffer.concat([await jpeg(10, 10), Buffer.alloc(LIMIT)]));
    assert.equal(res.statusCode, 413, res.body);
    assert.equal(res.data.code, 'payload_too_large');
    assert.match(res.data.message, new RegExp(`${LIMIT} bytes`));
    assert.equal(res.headers.connection, 'close');
  });

  it('aborts a chunked body as soon as it passes the limit', async () => {
    const chunk = Buffer.alloc(16 * 1024, 1);
    const total = 200; // 3.2 MB on offer, 16 times the limit
    let produced = 0;
    const res = await uploadChunked(
      t,
      (function* () {
        for (; produced < total; ) {
          produced++;
          yield chunk;
        }
      })(),
    );
    assert.equal(res.statusCode, 413, res.body);
    assert.equal(JSON.parse(res.body).code, 'payload_too_large');
    assert.ok(produced < total / 2, `read ${produced} of ${total} chunks`);
  });

  it('answers 413 over a real socket without taking in the whole body', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const declared = await sendOverSocket(port, t.key, 5_000_000, false);
    assert.deepEqual([declared.status, declared.code], [413, 'payload_too_large']);
    const size = 200_000_000;
    const chunked = await sendOverSocket(port, t.key, size, true);
    assert.deepEqual([chunked.status, chunked.code], [413, 'payload_too_large']);
    assert.ok(chunked.sent < size / 4, `client got to send ${chunked.sent} of ${size} bytes`);
  });

  it('accepts a body just under the limit', async () => {
    const small = await png(64, 64, 5);
    assert.ok(small.length < LIMIT);
    const res = await upload(t, small);
    assert.equal(res.statusCode, 200);
  });

  it('refuses uploads with a read-only key', async () => {
    const res = await upload(t, await png(13, 13), { key: t.readOnlyKey });
    assert.equal(res.statusCode, 403);
    assert.equal(res.data.code, 'insufficient_permissions');
  });

  it('requires a key', async () => {
    const res = await call(t, 'POST', '/v2/images', {
      key: null,
      payload: await png(13, 13),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(res.statusCode, 401);
  });
});

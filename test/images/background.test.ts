import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type TestApp, createTestApp } from '../support/app.ts';
import { png, upload } from './fixtures.ts';

/** A PNG of random pixels: hundreds of KB that do not compress. */
function noisyPng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** The body in 16 KB pieces, so that the parser sees many chunks. */
function inPieces(bytes: Buffer): Readable {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 16 * 1024) pieces.push(bytes.subarray(at, at + 16 * 1024));
  return Readable.from(pieces);
}

describe('POST /v2/images: work kept off the event loop', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('stores the same bytes, and dedupes, whether the body comes with a Content-Length or chunked', async () => {
    const bytes = await noisyPng(300, 300);
    assert.ok(bytes.length > 64 * 1024, 'the body spans several chunks');
    const send = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/v2/images',
        headers: { 'x-service-secret-key': t.key, 'content-type': 'application/octet-stream', ...headers },
        payload: inPieces(bytes),
      });
    const declared = await send({ 'content-length': String(bytes.length) });
    assert.equal(declared.statusCode, 200, declared.body);
    const chunked = await send({ 'transfer-encoding': 'chunked' });
    assert.equal(chunked.statusCode, 200, chunked.body);
    const whole = await upload(t, bytes);
    const ref = JSON.parse(declared.body).image.reference;
    assert.equal(JSON.parse(chunked.body).image.reference, ref);
    assert.equal(whole.data.image.reference, ref);

    const handle = await t.s.images.imageForOrganization(t.seed.organizations[0].reference, ref);
    const stored = await t.s.images.readImage(handle!.blobKey);
    assert.ok(stored!.equals(bytes), 'the stored file is the uploaded body');
  });

  it('refuses a truncated image that is large enough to be downsized', async () => {
    const wide = await png(7100, 40, 42);
    const res = await upload(t, wide.subarray(0, wide.length - 200));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.data.code, 'invalid_image');
    assert.match(res.data.message, /PNG image is truncated or corrupt/);
  });

  it('runs libvips threads below the priority of the event loop (Linux)', {
    skip: process.platform !== 'linux',
  }, async () => {
    const mainThread = getPriority(0);
    const res = await upload(t, await png(900, 900, 43));
    assert.equal(res.statusCode, 200, res.body);
    const workers = readdirSync('/proc/self/task').filter((tid) => {
      try {
        return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === 'libvips worker';
      } catch {
        return false; // exited meanwhile
      }
    });
    assert.ok(workers.length > 0, 'libvips names its threads "libvips worker"');
    for (const tid of workers)
      assert.ok(getPriority(Number(tid)) >= 10, `libvips thread ${tid} runs at nice ${getPriority(Number(tid))}`);
    assert.equal(getPriority(0), mainThread, 'the event loop keeps its priority');
  });
});

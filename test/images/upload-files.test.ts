import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { uploadTempDir } from '../../src/platform/http/upload.ts';
import { fitFileWithin } from '../../src/platform/images.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { bombPng, jpeg, png, upload, uploadChunked, uploadRequest } from './fixtures.ts';

/**
 * Waits (up to 10 s) for `dir` to empty: the clean-up after a request that ends without its handler
 * (a vanished client, a replay) runs when the connection closes, which nobody awaits.
 */
async function emptied(dir: string): Promise<string[]> {
  for (let i = 0; i < 200 && readdirSync(dir).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  return readdirSync(dir);
}

/** Upload bodies are written to temporary files while they arrive; none may outlive its request. */
describe('upload bodies on disk', () => {
  const LIMIT = 300_000;
  let t: TestApp;
  let dir: string;
  let port: number;
  const stale = 'left-by-a-killed-process.upload';
  before(async () => {
    t = await createTestApp({ env: { UPLOAD_LIMIT_BYTES: String(LIMIT) } });
    dir = uploadTempDir(t.s.config.dataDir);
    // A body file of an earlier process that was killed mid-upload, two hours ago.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, stale), 'partial body');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(join(dir, stale), twoHoursAgo, twoHoursAgo);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  const leftovers = () => readdirSync(dir);

  it('removes the stale files of a killed process with the first upload', async () => {
    const res = await upload(t, await png(30, 30, 1));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(existsSync(join(dir, stale)), false);
    assert.deepEqual(leftovers(), []);
  });

  it('leaves nothing behind after stored uploads, downsized or not, and after a repeat', async () => {
    const small = await jpeg(64, 48, 2);
    for (const bytes of [small, await jpeg(7100, 20, 3), small]) {
      const res = await upload(t, bytes);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(leftovers(), []);
    }
  });

  const refused: Array<[string, () => Promise<Buffer>, number, string]> = [
    ['not an image', async () => Buffer.from('plain text, not a picture'), 400, 'invalid_image'],
    ['a truncated PNG', async () => (await png(400, 300, 4)).subarray(0, 2000), 400, 'invalid_image'],
    ['too many pixels (a decompression bomb)', () => bombPng(100_000), 400, 'invalid_image'],
    ['an empty body', async () => Buffer.alloc(0), 400, 'invalid_image'],
  ];
  for (const [name, make, status, code] of refused) {
    it(`leaves nothing behind for ${name}`, async () => {
      const res = await upload(t, await make());
      assert.deepEqual([res.statusCode, res.data.code], [status, code], res.body);
      assert.deepEqual(leftovers(), []);
    });
  }

  it('leaves nothing behind for refused evidence', async () => {
    const res = await call(t, 'POST', '/v2/evidence', {
      payload: Buffer.from('GIF89a, not accepted'),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(leftovers(), []);
  });

  it('leaves nothing behind when a chunked body passes the limit half way', async () => {
    const chunk = Buffer.alloc(16 * 1024, 7);
    const res = await uploadChunked(
      t,
      Array.from({ length: 40 }, () => chunk),
    );
    assert.equal(res.statusCode, 413, res.body);
    assert.deepEqual(leftovers(), []);
  });

  it('removes the partial body when the client goes away mid-upload', async () => {
    const bytes = await png(200, 200, 5);
    const req = uploadRequest(t, port, bytes.length + 100_000);
    req.on('error', () => {});
    req.write(bytes);
    // The body file exists once the first bytes are in; then the client vanishes.
    for (let i = 0; i < 200 && leftovers().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(leftovers().length, 1, 'the body was being written to a file');
    req.destroy();
    assert.deepEqual(await emptied(dir), []);
  });

  it('keeps the request log to the size of an upload, not its bytes or its file', async () => {
    const res = await call(t, 'POST', '/v2/images', {
      payload: Buffer.from('not an image at all'),
      headers: { 'content-type': 'application/octet-stream', 'x-request-id': 'upload-file-log' },
    });
    assert.equal(res.statusCode, 400);
    await t.s.requestLog.flush();
    const {
      rows: [row],
    } = await t.s.requestLog.list(t.seed.organizations[0].reference, { requestId: 'upload-file-log', limit: 1 });
    assert.equal(row.request_body, '[19 bytes]');
  });
});

describe('Idempotency-Key on uploads: the digest of the streamed body', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  // Cut in odd pieces: the digest must not depend on how the body arrived.
  const chunked = (bytes: Buffer, key: string) =>
    uploadChunked(t, [bytes.subarray(0, 7), bytes.subarray(7, 1000), bytes.subarray(1000)], { 'idempotency-key': key });

  it('stores the SHA-256 of the bytes and replays the same bytes however they were sent', async () => {
    const bytes = await png(90, 60, 70);
    const first = await upload(t, bytes, { headers: { 'idempotency-key': 'digest-1' } });
    assert.equal(first.statusCode, 200, first.body);
    const [row] = await t.db.query<{ body_hash: string }>(
      'SELECT body_hash FROM idempotency_keys WHERE organization_id = $1 AND key = $2',
      [t.seed.organizations[0].reference, 'digest-1'],
    );
    assert.equal(row.body_hash, createHash('sha256').update(bytes).digest('hex'));

    const again = await chunked(bytes, 'digest-1');
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(JSON.parse(again.body), first.data);
    // The replay never reached the handler: its body file goes when the request ends.
    assert.deepEqual(await emptied(uploadTempDir(t.s.config.dataDir)), []);
  });

  it('refuses other bytes under the same key, even of the same size', async () => {
    const bytes = await png(90, 60, 71);
    const first = await upload(t, bytes, { headers: { 'idempotency-key': 'digest-2' } });
    assert.equal(first.statusCode, 200, first.body);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 20] ^= 0xff;
    const other = await chunked(flipped, 'digest-2');
    assert.equal(other.statusCode, 409, other.body);
    assert.equal(JSON.parse(other.body).code, 'idempotency_key_reused');
    assert.deepEqual(await emptied(uploadTempDir(t.s.config.dataDir)), []);
  });
});

describe('fitFileWithin: from a file to a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pod-fit-file-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, bytes: Buffer) => {
    writeFileSync(join(dir, name), bytes);
    return { path: join(dir, name), size: bytes.length };
  };

  it('writes the downsized image to the output path and describes it', async () => {
    const input = write('wide.jpg', await jpeg(7200, 900, 21));
    const out = await fitFileWithin(input, 7000, join(dir, 'wide.out'));
    assert.equal(out.path, join(dir, 'wide.out'));
    assert.deepEqual([out.width, out.height, out.originalWidth, out.resized], [7000, 875, 7200, true]);
    assert.equal(out.size, statSync(out.path).size);
    const meta = await sharp(readFileSync(out.path)).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 7000, 875]);
  });

  it('hands back the input file itself when the image already fits, writing nothing', async () => {
    const input = write('small.png', await png(50, 40, 22));
    const out = await fitFileWithin(input, 7000, join(dir, 'small.out'));
    assert.deepEqual([out.path, out.size, out.resized], [input.path, input.size, false]);
    assert.equal(existsSync(join(dir, 'small.out')), false);
  });

  it('leaves nothing at the output path when the pixels turn out corrupt', async () => {
    const whole = await jpeg(7300, 400, 23);
    const input = write('cut.jpg', whole.subarray(0, Math.floor(whole.length / 2)));
    await assert.rejects(fitFileWithin(input, 7000, join(dir, 'cut.out')), /truncated or corrupt/);
    assert.equal(existsSync(join(dir, 'cut.out')), false);
  });
});

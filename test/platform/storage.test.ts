import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type BlobStore, LocalBlobStore } from '../../src/platform/storage.ts';
import { createBlobStore, S3BlobStore } from '../../src/platform/storage-s3.ts';
import { call, createTestApp, type TestApp } from '../support/app.ts';
import { type LocalS3, startLocalS3 } from '../support/s3.ts';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const started = await startLocalS3();
const s3: LocalS3 | null = 'error' in started ? null : started;
const s3Skip = 'error' in started ? `S3 tests skipped: ${started.error}` : false;
if (s3Skip) console.log(s3Skip);
after(() => s3?.close());

/** The same behaviour from every implementation; `make` gives a store with no objects yet. */
function contract(name: string, make: () => BlobStore, opts: { skip: string | false }) {
  describe(`BlobStore contract: ${name}`, { skip: opts.skip }, () => {
    let store: BlobStore;
    // A fresh prefix per run: the S3 bucket and the local folder outlive a single test.
    const base = `images/org_${randomBytes(6).toString('hex')}`;
    before(() => {
      store = make();
    });

    it('round-trips binary data exactly', async () => {
      const data = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(4096)]);
      await store.put(`${base}/bin.png`, data);
      assert.deepEqual(await store.get(`${base}/bin.png`), data);
    });

    it('streams an object with its size', async () => {
      const data = randomBytes(10_000);
      await store.put(`${base}/streamed.jpg`, data);
      const found = await store.stream(`${base}/streamed.jpg`);
      assert.ok(found);
      assert.equal(found.size, data.length);
      assert.deepEqual(await readAll(found.stream), data);
    });

    it('answers null for a missing key, from get and stream', async () => {
      assert.equal(await store.get(`${base}/missing.png`), null);
      assert.equal(await store.stream(`${base}/missing.png`), null);
      assert.equal(await store.get(`never/${randomBytes(4).toString('hex')}/x.bin`), null);
    });

    it('deletes, and deleting twice or a missing key is fine', async () => {
      await store.put(`${base}/gone.png`, Buffer.from('bytes'));
      await store.delete(`${base}/gone.png`);
      assert.equal(await store.get(`${base}/gone.png`), null);
      assert.equal(await store.stream(`${base}/gone.png`), null);
      await store.delete(`${base}/gone.png`);
      await store.delete(`${base}/never-there.png`);
    });

    it('overwrites an object with new content and size', async () => {
      await store.put(`${base}/over.png`, Buffer.from('first version, longer'));
      await store.put(`${base}/over.png`, Buffer.from('second'));
      assert.deepEqual(await store.get(`${base}/over.png`), Buffer.from('second'));
      const found = await store.stream(`${base}/over.png`);
      assert.equal(found?.size, 6);
      assert.deepEqual(await readAll(found!.stream), Buffer.from('second'));
    });

    it('keeps keys with nested paths apart', async () => {
      const keys = [
        `${base}/a/b/c/deep.png`,
        `${base}/a/b/sibling.png`,
        `${base}/a/top.png`,
        `renders/${base.slice(7)}/r_1.png`,
      ];
      await Promise.all(keys.map((k, i) => store.put(k, Buffer.from(`content ${i}`))));
      for (const [i, k] of keys.entries()) assert.deepEqual(await store.get(k), Buffer.from(`content ${i}`));
      await store.delete(keys[1]);
      assert.equal(await store.get(keys[1]), null);
      assert.deepEqual(await store.get(keys[0]), Buffer.from('content 0'));
    });

    it('stores and streams a 5 MB object', async () => {
      const data = randomBytes(5 * 1024 * 1024);
      await store.put(`${base}/large.bin`, data);
      const found = await store.stream(`${base}/large.bin`);
      assert.equal(found?.size, data.length);
      assert.ok((await readAll(found!.stream)).equals(data));
      assert.ok((await store.get(`${base}/large.bin`))!.equals(data));
    });

    it('stores a file without the caller holding its bytes, the same as put', async () => {
      const data = randomBytes(3 * 1024 * 1024 + 17);
      const dir = mkdtempSync(join(tmpdir(), 'pod-blobs-file-'));
      try {
        const file = join(dir, 'body.upload');
        writeFileSync(file, data);
        await store.putFile(`${base}/a/from-file.png`, file);
        const found = await store.stream(`${base}/a/from-file.png`);
        assert.equal(found?.size, data.length);
        assert.ok((await readAll(found!.stream)).equals(data));
        await assert.rejects(store.putFile(`${base}/missing.png`, join(dir, 'never-written')), /ENOENT/);
        assert.equal(await store.get(`${base}/missing.png`), null);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('stores the file a writer makes at the path it is given, and nothing when the writer fails', async () => {
      const data = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 13) % 256));
      let written = '';
      await store.putWritten(`${base}/w/made.png`, async (path) => {
        written = path;
        writeFileSync(path, data);
      });
      assert.ok((await store.get(`${base}/w/made.png`))?.equals(data));
      assert.equal(existsSync(written), false, 'the temporary file is gone');
      await assert.rejects(
        store.putWritten(`${base}/w/failed.png`, async (path) => {
          written = path;
          writeFileSync(path, data.subarray(0, 10));
          throw new Error('encoder failed');
        }),
        /encoder failed/,
      );
      assert.equal(await store.get(`${base}/w/failed.png`), null, 'half a file is never stored');
      assert.equal(existsSync(written), false, 'nor left behind');
    });

    it('refuses keys that could leave the store', async () => {
      for (const key of ['../etc/passwd', `${base}/../../x`, '/abs/key', '', 'a b']) {
        await assert.rejects(store.put(key, Buffer.from('x')), /unsafe blob key/, key);
        await assert.rejects(store.get(key), /unsafe blob key/, key);
      }
    });
  });
}

const localRoot = mkdtempSync(join(tmpdir(), 'pod-blobs-contract-'));
after(() => rmSync(localRoot, { recursive: true, force: true }));
contract('LocalBlobStore', () => new LocalBlobStore(localRoot), { skip: false });
contract('S3BlobStore on s3rver', () => s3!.store(), { skip: s3Skip });

describe('S3BlobStore errors', { skip: s3Skip }, () => {
  it('fails loudly on a bucket that does not exist, instead of answering "missing"', async () => {
    const store = new S3BlobStore({
      bucket: 'no-such-bucket',
      endpoint: s3!.endpoint,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    try {
      await assert.rejects(store.put('images/x.png', Buffer.from('x')), /bucket/i);
    } finally {
      store.destroy();
    }
  });
});

describe('blob store configuration', () => {
  it('defaults to the local store under DATA_DIR/blobs', () => {
    const c = loadConfig({ DATA_DIR: '/tmp/pod-x' });
    assert.equal(c.blobStore, 'local');
    assert.equal(c.s3, null);
    assert.ok(createBlobStore(c) instanceof LocalBlobStore);
  });

  it('reads the S3 variables, path-style by default when an endpoint is set', () => {
    const c = loadConfig({
      BLOB_STORE: 's3',
      S3_BUCKET: 'pod-blobs',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
    assert.deepEqual(c.s3, {
      bucket: 'pod-blobs',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      forcePathStyle: true,
    });
    const store = createBlobStore(c);
    assert.ok(store instanceof S3BlobStore);
    store.destroy();

    const aws = loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'pod-blobs', S3_REGION: 'eu-central-1' });
    assert.deepEqual(aws.s3, {
      bucket: 'pod-blobs',
      endpoint: null,
      region: 'eu-central-1',
      accessKeyId: null,
      secretAccessKey: null,
      forcePathStyle: false,
    });
    assert.equal(
      loadConfig({
        BLOB_STORE: 's3',
        S3_BUCKET: 'pod-blobs',
        S3_ENDPOINT: 'https://r2.example',
        S3_FORCE_PATH_STYLE: 'false',
      }).s3?.forcePathStyle,
      false,
    );
    assert.equal(loadConfig({ BLOB_STORE: 'local', S3_BUCKET: 'Not Valid' }).s3, null);
  });

  it('names the bad variable', () => {
    const s3Env = { BLOB_STORE: 's3', S3_BUCKET: 'pod-blobs' };
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ BLOB_STORE: 'nfs' }, /^BLOB_STORE must be "local" or "s3"/],
      [{ BLOB_STORE: 's3' }, /^S3_BUCKET is required when BLOB_STORE=s3/],
      [{ BLOB_STORE: 's3', S3_BUCKET: 'Bad_Bucket' }, /^S3_BUCKET must be/],
      [{ ...s3Env, S3_ENDPOINT: 'minio:9000' }, /^S3_ENDPOINT (is not a valid URL|must use http: or https:)/],
      [{ ...s3Env, S3_ENDPOINT: 'ftp://minio' }, /^S3_ENDPOINT must use http: or https:/],
      [{ ...s3Env, S3_REGION: 'EU West' }, /^S3_REGION must be/],
      [{ ...s3Env, S3_ACCESS_KEY_ID: 'id' }, /^S3_SECRET_ACCESS_KEY is required/],
      [{ ...s3Env, S3_SECRET_ACCESS_KEY: 'secret' }, /^S3_ACCESS_KEY_ID is required/],
      [{ ...s3Env, S3_FORCE_PATH_STYLE: 'sometimes' }, /^S3_FORCE_PATH_STYLE must be true or false/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && message.test((e as Error).message),
        JSON.stringify(env),
      );
    }
  });
});

describe('the service on S3 blob storage', { skip: s3Skip }, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ blobs: s3!.store() });
  });
  after(() => t?.close());

  it('stores an uploaded image in the bucket and reads it back through the images service', async () => {
    const bytes = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#2a9d8f' } })
      .png()
      .toBuffer();
    const res = await call(t, 'POST', '/v2/images', {
      payload: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const org = t.seed.organizations[0].reference;
    const handle = await t.s.images.imageForOrganization(org, res.data.image.reference);
    assert.ok(handle);
    assert.match(handle.blobKey, /^images\/.+\.png$/);

    const stored = await t.s.images.readImage(handle.blobKey);
    assert.ok(stored);
    assert.equal(stored.length, res.data.image.size);
    const meta = await sharp(stored).metadata();
    assert.deepEqual([meta.width, meta.height, meta.format], [120, 80, 'png']);

    // It is in the bucket (seen by another client, as another node would), not in a local folder.
    const otherNode = s3!.store();
    assert.ok((await otherNode.get(handle.blobKey))?.equals(stored));
    assert.equal(existsSync(join(t.s.config.dataDir, 'blobs', handle.blobKey)), false);
  });
});

import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { Config, S3Config } from '../config.ts';
import { type BlobStore, LocalBlobStore } from './storage.ts';

export type S3BlobStoreOptions = S3Config;

const SAFE_KEY = /^[A-Za-z0-9][\w./-]*$/;

type Sdk = typeof import('@aws-sdk/client-s3');

/** Whether an SDK error means "no such object"; servers differ between the code and the bare status. */
function isMissing(sdk: Sdk, err: unknown): boolean {
  if (err instanceof sdk.S3ServiceException) {
    return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
  }
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * Blobs in an S3-compatible bucket, shared by every API node and worker. Each object is written
 * with one PutObject, which S3 makes visible atomically: a reader never sees half an object.
 *
 * The SDK is imported when a store is made, not with this module: it holds ~12 MB in every process
 * that imports the services, and only BLOB_STORE=s3 uses it. The import starts in the constructor so
 * the first blob request does not wait for it.
 */
export class S3BlobStore implements BlobStore {
  private readonly ready: Promise<{ sdk: Sdk; client: S3Client }>;
  private readonly bucket: string;

  constructor(opts: S3BlobStoreOptions) {
    this.bucket = opts.bucket;
    // The SDK warns on Node 20 that its releases after January 2027 will need Node 22. The version
    // in package-lock supports Node 20 (engines >=20); the move is tracked in
    // docs/decisions/0170-node-20-pins.md, so the notice is acknowledged here instead of printed by
    // every process (an operator's own setting of the variable wins).
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.ready = import('@aws-sdk/client-s3').then((sdk) => ({ sdk, client: new sdk.S3Client(clientConfig(opts)) }));
    // A failed import is reported by every call that needs the SDK, not as an unhandled rejection.
    this.ready.catch(() => {});
  }

  /** The same key rules as the local store, so a key valid on one is valid on the other. */
  private key(key: string): string {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe blob key: ${key}`);
    return key;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const Key = this.key(key);
    const { sdk, client } = await this.ready;
    await client.send(new sdk.PutObjectCommand({ Bucket: this.bucket, Key, Body: data, ContentLength: data.length }));
  }

  /** Streamed from the file with its length: the SDK then sends it without buffering it whole. */
  async putFile(key: string, path: string): Promise<void> {
    const Key = this.key(key);
    const { sdk, client } = await this.ready;
    const { size } = await stat(path);
    const Body = createReadStream(path);
    try {
      await client.send(new sdk.PutObjectCommand({ Bucket: this.bucket, Key, Body, ContentLength: size }));
    } finally {
      Body.destroy();
    }
  }

  async putWritten(key: string, write: (path: string) => Promise<unknown>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'blob-'));
    try {
      const path = join(dir, 'file');
      await write(path);
      await this.putFile(key, path);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async get(key: string): Promise<Buffer | null> {
    const found = await this.stream(key);
    if (!found) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of found.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async stream(key: string): Promise<{ stream: Readable; size: number } | null> {
    const Key = this.key(key);
    const { sdk, client } = await this.ready;
    try {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key }));
      if (!(res.Body instanceof Readable)) throw new Error('S3 GetObject did not return a Node stream');
      return { stream: res.Body, size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(sdk, err)) return null;
      throw err;
    }
  }

  /** S3 answers 204 for a missing key too, so deleting twice is fine. */
  async delete(key: string): Promise<void> {
    const Key = this.key(key);
    const { sdk, client } = await this.ready;
    try {
      await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (err) {
      if (!isMissing(sdk, err)) throw err;
    }
  }

  /** Closes the client's keep-alive sockets (at once, or when the SDK has loaded). */
  destroy(): void {
    void this.ready.then(
      ({ client }) => client.destroy(),
      () => {},
    );
  }
}

function clientConfig(opts: S3BlobStoreOptions): S3ClientConfig {
  return {
    region: opts.region,
    endpoint: opts.endpoint ?? undefined,
    forcePathStyle: opts.forcePathStyle,
    // Without explicit keys the SDK's default chain applies (instance role, web identity, env).
    credentials:
      opts.accessKeyId && opts.secretAccessKey
        ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
        : undefined,
    // Checksums on every request by default are not understood by every S3-compatible server.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/** The store chosen by BLOB_STORE: files under DATA_DIR/blobs, or an S3-compatible bucket. */
export function createBlobStore(config: Pick<Config, 'dataDir' | 'blobStore' | 's3'>): BlobStore {
  if (config.blobStore === 's3' && config.s3) return new S3BlobStore(config.s3);
  return new LocalBlobStore(join(config.dataDir, 'blobs'));
}

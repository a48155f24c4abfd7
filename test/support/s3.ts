import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3BlobStore } from '../../src/platform/storage-s3.ts';

/** The part of s3rver (untyped, CommonJS) that the tests use. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (opts: Record<string, unknown>) => S3rverInstance;

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** A client on the local server; every store made here is closed by `close()`. */
  store(): S3BlobStore;
  close(): Promise<void>;
}

/**
 * s3rver, an S3-compatible server in this process, on 127.0.0.1 with a random port and a temporary
 * folder. Returns the reason instead when it cannot start, so the caller can skip with a message.
 */
export async function startLocalS3(bucket = 'pod-test-blobs'): Promise<LocalS3 | { error: string }> {
  const directory = mkdtempSync(join(tmpdir(), 'pod-s3rver-'));
  let server: S3rverInstance;
  let address: AddressInfo;
  try {
    const S3rver = ((await import('s3rver' as string)) as { default: S3rverClass }).default;
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      directory,
      silent: true,
      configureBuckets: [{ name: bucket }],
    });
    address = await server.run();
  } catch (err) {
    rmSync(directory, { recursive: true, force: true });
    return { error: `s3rver could not start: ${(err as Error).message}` };
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  const stores: S3BlobStore[] = [];
  return {
    endpoint,
    bucket,
    store() {
      const s = new S3BlobStore({
        bucket,
        endpoint,
        region: 'us-east-1',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
      });
      stores.push(s);
      return s;
    },
    async close() {
      for (const s of stores) s.destroy();
      server.httpServer?.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

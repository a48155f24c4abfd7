import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { randomId } from './ids.ts';

/**
 * Blob storage for images, evidence, renders and product media. Keys are relative paths such as
 * `images/<org>/<sha256>.png`. The local store serves one node; several nodes share an
 * S3-compatible implementation of the same interface.
 */
export interface BlobStore {
  put(key: string, data: Buffer): Promise<void>;
  /**
   * Stores the file at `path` without reading it into memory (a large upload or its downsized copy).
   * The file may be moved: the caller must not use it afterwards, and removes it if it is still there.
   */
  putFile(key: string, path: string): Promise<void>;
  /**
   * Stores the file `write` makes at the path it is given (a temporary file beside the key's on the
   * local store, renamed into place; streamed from a temporary file to S3): an encoder writes
   * straight to disk, and what it makes is never a buffer in memory.
   */
  putWritten(key: string, write: (path: string) => Promise<unknown>): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  stream(key: string): Promise<{ stream: Readable; size: number } | null>;
  delete(key: string): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9][\w./-]*$/;

export class LocalBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private path(key: string): string {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe blob key: ${key}`);
    return join(this.root, key);
  }

  /** Written to a temporary name and renamed, so a reader never sees half a file. */
  async put(key: string, data: Buffer): Promise<void> {
    const path = this.path(key);
    // Partners' artwork and evidence: readable by the service's user only.
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${randomId(8)}.tmp`;
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, path);
  }

  async putWritten(key: string, write: (path: string) => Promise<unknown>): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${randomId(8)}.tmp`;
    try {
      await write(tmp);
      await chmod(tmp, 0o600);
      await rename(tmp, path);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /** Renamed into place (the same file system as DATA_DIR's temporary files); copied when not. */
  async putFile(key: string, from: string): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    try {
      await rename(from, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      const tmp = `${path}.${randomId(8)}.tmp`;
      try {
        await copyFile(from, tmp);
        await rename(tmp, path);
      } finally {
        await rm(tmp, { force: true });
      }
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async stream(key: string): Promise<{ stream: Readable; size: number } | null> {
    const path = this.path(key);
    try {
      const st = await stat(path);
      return { stream: createReadStream(path), size: st.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite, types } from '@electric-sql/pglite';
import { type Db, type Executor, type Row, fromDatabase } from './types.ts';

export interface PgliteOptions {
  dataDir?: string;
}

/**
 * bytea converted natively. PGlite's own converters go byte by byte through strings: its parser
 * (`parseInt` per byte pair) took ~150-250 ms to read the 50 packed request-log batches (~2 MB) of
 * one dashboard search step, its serializer (a string per byte, joined) ~20 µs per logged request
 * on the inline thread. Same values: bytes in hex text in, a Uint8Array out.
 */
export const byteaTypes = {
  parsers: {
    [types.BYTEA]: (text: string): Uint8Array => {
      if (!text.startsWith('\\x')) return fromEscapeFormat(text);
      // Its own memory, not a view of Node's shared pool: the worker thread copies a whole
      // ArrayBuffer when it sends a view of one.
      const out = Buffer.allocUnsafeSlow((text.length - 2) >> 1);
      out.write(text.slice(2), 'hex');
      return new Uint8Array(out.buffer, 0, out.length);
    },
  },
  serializers: {
    [types.BYTEA]: (value: unknown): string => {
      if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
      return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
    },
  },
};

/** bytea_output = 'escape' (the service keeps 'hex'; PGlite's parser reads this as hex, wrongly). */
function fromEscapeFormat(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '\\') out.push(text.charCodeAt(i));
    else if (text[i + 1] === '\\') {
      out.push(92);
      i++;
    } else {
      out.push(Number.parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    }
  }
  return Uint8Array.from(out);
}

/** Starts PGlite the way the service runs it, on the calling thread. */
export async function createPglite(options: PgliteOptions): Promise<PGlite> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // PGlite's WASM memory only grows: PostgreSQL's default 128 MB of shared buffers, once filled,
  // stay in the process for good. The files are in the OS page cache anyway, so 16 MB costs
  // little speed for ~100 MB less resident memory.
  const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];
  if (options.dataDir && !existsSync(join(options.dataDir, 'PG_VERSION')))
    await initInChild(options.dataDir, startParams);
  const pg = await PGlite.create({
    dataDir: options.dataDir,
    startParams,
    ...byteaTypes,
  });
  // PGlite creates its files world-writable (0666); the database is the service's alone.
  if (options.dataDir) tighten(options.dataDir);
  return pg;
}

/**
 * PGlite on the calling thread (`PGLITE_THREAD=inline`); it has one connection, so transactions are
 * serialised. The service's default runs it on a worker thread instead (`pglite-thread.ts`).
 */
export class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  private constructor(readonly pg: PGlite) {}

  static async open(options: PgliteOptions): Promise<PgliteDb> {
    return new PgliteDb(await createPglite(options));
  }

  async query<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      return (await this.pg.query<T>(sql, params)).rows;
    } catch (err) {
      throw fromDatabase(err);
    }
  }

  tx<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    return this.pg.transaction(async (t) =>
      fn({
        query: async <R extends Row>(sql: string, params: unknown[] = []) => {
          try {
            return (await t.query<R>(sql, params)).rows;
          } catch (err) {
            throw fromDatabase(err);
          }
        },
      }),
    );
  }

  /**
   * PGlite belongs to one process, whose writers invalidate their caches themselves; notifications
   * still matter for what triggers announce (an order changed by any statement).
   */
  listen(channel: string, onMessage: (payload: string) => void): void {
    void this.pg.listen(channel, onMessage).catch(() => {});
  }

  async exec(sql: string): Promise<void> {
    await this.pg.exec(sql);
  }

  async close(): Promise<void> {
    if (!this.pg.closed) await this.pg.close();
  }
}

/**
 * Creating a database (PGlite's initdb) takes the process to ~800 MB resident, and much of it stays
 * (WASM memory only grows); opening an existing one takes ~240 MB. A short-lived child process does
 * the creation, so the server's own memory never holds it.
 */
async function initInChild(dataDir: string, startParams: string[]): Promise<void> {
  const code = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))});
const pg = await PGlite.create({ dataDir: ${JSON.stringify(dataDir)}, startParams: ${JSON.stringify(startParams)} });
await pg.close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], { env: process.env });
}

/** 0700 for folders and 0600 for files, all the way down. */
function tighten(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tighten(path);
    else if (entry.isFile()) chmodSync(path, 0o600);
  }
}

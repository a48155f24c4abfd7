import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Db, Executor, Row } from './types.ts';

/** PGlite runs Postgres in-process; it has one connection, so transactions are serialised. */
export class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  private constructor(readonly pg: PGlite) {}

  static async open(options: { dataDir?: string; loadDataDir?: Blob }): Promise<PgliteDb> {
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    // PGlite's WASM memory only grows: PostgreSQL's default 128 MB of shared buffers, once filled,
    // stay in the process for good. The files are in the OS page cache anyway, so 16 MB costs
    // little speed for ~100 MB less resident memory.
    const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];
    const pg = await PGlite.create({ dataDir: options.dataDir, loadDataDir: options.loadDataDir, startParams });
    return new PgliteDb(pg);
  }

  async query<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    const result = await this.pg.query<T>(sql, params);
    return result.rows;
  }

  tx<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    return this.pg.transaction(async (t) =>
      fn({
        query: async <R extends Row>(sql: string, params: unknown[] = []) => (await t.query<R>(sql, params)).rows,
      }),
    );
  }

  /** PGlite belongs to one process, whose writers invalidate their caches themselves. */
  listen(): void {}

  async exec(sql: string): Promise<void> {
    await this.pg.exec(sql);
  }

  async close(): Promise<void> {
    if (!this.pg.closed) await this.pg.close();
  }
}

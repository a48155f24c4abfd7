import pg from 'pg';
import type { Db, Executor, Row } from './types.ts';

// int8 and numeric counts come back as strings by default; every bigint here fits a double.
const types = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

/**
 * node-postgres reports a lost or refused connection as an Error without a code ("Connection
 * terminated unexpectedly", "timeout exceeded when trying to connect"); it gets SQLSTATE 08006
 * (connection_failure), so the error handler answers 503 like any other unreachable database.
 */
function asConnectionFailure(err: unknown): unknown {
  if (err instanceof Error && !(err as { code?: unknown }).code && /connection terminated|timeout exceeded when trying to connect|connection ended|not queryable/i.test(err.message)) {
    return Object.assign(err, { code: '08006' });
  }
  return err;
}

export class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;

  constructor(connectionString: string, poolSize = 10) {
    // A connection attempt into a partition fails after 5 s (a 503) instead of hanging the request.
    this.pool = new pg.Pool({ connectionString, max: poolSize, types, connectionTimeoutMillis: 5000 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  async query<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      const result = await this.pool.query(sql, params);
      return result.rows as T[];
    } catch (err) {
      throw asConnectionFailure(err);
    }
  }

  async tx<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((err) => {
      throw asConnectionFailure(err);
    });
    try {
      await client.query('BEGIN');
      const result = await fn({
        query: async <R extends Row>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as R[],
      });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw asConnectionFailure(err);
    } finally {
      client.release();
    }
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

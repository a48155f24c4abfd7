import pg from 'pg';
import { isStalePlan, statementName } from './prepared.ts';
import { type Db, type Executor, type Row, fromDatabase } from './types.ts';

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
  if (
    err instanceof Error &&
    !(err as { code?: unknown }).code &&
    /connection terminated|timeout exceeded when trying to connect|connection ended|not queryable/i.test(err.message)
  ) {
    return Object.assign(err, { code: '08006' });
  }
  return err;
}

interface Listener {
  onMessage: (payload: string) => void;
  onReset: () => void;
}

const PLAN_EVERY_RUN = '-c plan_cache_mode=force_custom_plan';

/**
 * The connection settings with our startup option added to any the URL already has: node-postgres
 * lets a URL's `options` replace the config's, which would drop ours without a word.
 */
function planEveryRun(connectionString: string): { connectionString: string; options: string } {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString, options: PLAN_EVERY_RUN };
  }
  const own = url.searchParams.get('options');
  if (own === null) return { connectionString, options: PLAN_EVERY_RUN };
  url.searchParams.delete('options');
  return { connectionString: url.toString(), options: `${own} ${PLAN_EVERY_RUN}` };
}

function statement(text: string, values: unknown[]): pg.QueryConfig {
  const name = statementName(text);
  return name ? { name, text, values } : { text, values };
}

/**
 * Runs the work given to it one at a time, each after the one before has settled. A pg client
 * answers one query at a time; sending it another while one runs (statements of one transaction
 * sent together, a LISTEN while another is on its way) is deprecated in pg 8 and an error in pg 9.
 */
export function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const run = last.then(work);
    last = run.catch(() => {});
    return run;
  };
}

export class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  private readonly listeners = new Map<string, Listener[]>();
  private listenClient: pg.Client | null = null;
  private listenRetry: NodeJS.Timeout | null = null;
  private readonly onListenClient = oneAtATime();
  private closed = false;

  constructor(
    private readonly connectionString: string,
    poolSize = 10,
  ) {
    // A connection attempt into a partition fails after 5 s (a 503) instead of hanging the request.
    // Named statements live as long as their connection, and PostgreSQL may switch one to a generic
    // plan after five runs, chosen on the statistics of that moment: a node whose connections do
    // so while the tables are small keeps plans that get slower as they grow (one of two nodes on
    // one database writes orders at half the other's rate, falling slice after slice). Every run is
    // planned with its own values, as PGlite's worker does; parsing is still saved.
    this.pool = new pg.Pool({ ...planEveryRun(connectionString), max: poolSize, types, connectionTimeoutMillis: 5000 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  async query<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      const result = await this.pool.query(statement(sql, params));
      return result.rows as T[];
    } catch (err) {
      if (isStalePlan(err, sql)) return this.query(sql, params);
      throw fromDatabase(asConnectionFailure(err));
    }
  }

  async tx<T>(fn: (tx: Executor) => Promise<T>, retried = false): Promise<T> {
    const client = await this.pool.connect().catch((err) => {
      throw fromDatabase(asConnectionFailure(err));
    });
    let stale = false;
    const inTurn = oneAtATime();
    try {
      await client.query('BEGIN');
      const result = await fn({
        query: async <R extends Row>(sql: string, params: unknown[] = []) => {
          try {
            return (await inTurn(() => client.query(statement(sql, params)))).rows as R[];
          } catch (err) {
            stale ||= isStalePlan(err, sql);
            throw fromDatabase(asConnectionFailure(err));
          }
        },
      });
      await inTurn(() => client.query('COMMIT')).catch((err) => {
        throw fromDatabase(asConnectionFailure(err));
      });
      return result;
    } catch (err) {
      await inTurn(() => client.query('ROLLBACK')).catch(() => {});
      // The transaction did nothing: it runs once more with the statement unnamed.
      if (stale && !retried) return this.tx(fn, true);
      throw asConnectionFailure(err);
    } finally {
      client.release();
    }
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  listen(channel: string, onMessage: (payload: string) => void, onReset: () => void): void {
    const first = this.listeners.size === 0;
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), { onMessage, onReset }]);
    if (first) void this.connectListener();
    else if (this.listenClient) {
      const client = this.listenClient;
      void this.onListenClient(() => client.query(`LISTEN "${channel}"`)).catch(() => {});
    }
  }

  /**
   * One connection outside the pool holds the LISTENs. When it drops, every listener resets (a
   * notification may have been missed) and it reconnects every second until it is back.
   */
  private async connectListener(): Promise<void> {
    this.listenRetry = null;
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      keepAlive: true,
      connectionTimeoutMillis: 5000,
    });
    const lost = () => {
      if (this.listenClient === client) this.listenClient = null;
      this.resetListeners();
      if (!this.closed && !this.listenRetry)
        this.listenRetry = setTimeout(() => void this.connectListener(), 1000).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      for (const l of this.listeners.get(n.channel) ?? []) l.onMessage(n.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN "${channel}"`);
      if (this.closed) return void (await client.end().catch(() => {}));
      this.listenClient = client;
      // Changes made before LISTEN took effect were not heard.
      this.resetListeners();
    } catch {
      await client.end().catch(() => {});
      lost();
    }
  }

  private resetListeners(): void {
    for (const list of this.listeners.values()) for (const l of list) l.onReset();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.listenRetry) clearTimeout(this.listenRetry);
    await this.listenClient?.end().catch(() => {});
    await this.pool.end();
  }
}

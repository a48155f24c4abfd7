export type Row = Record<string, any>;

/** Something SQL can run on: the pool, or the open transaction. */
export interface Executor {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Db extends Executor {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction; every query inside must go through the executor it is given. */
  tx<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Hears `NOTIFY channel` from other nodes. `onReset` runs whenever notifications may have been
   * missed (connecting, reconnecting), so that listeners drop what they cached.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReset: () => void): void;
  close(): Promise<void>;
}

/**
 * Statements of one transaction that do not need each other's results, sent without waiting for
 * one another: the executor runs them in the order they were sent, and on PGlite each wait is a
 * round trip between threads. Waits for every one, so that nothing runs after the transaction has
 * ended, and throws the first failure in time: once a statement fails, the ones after it fail only
 * because the transaction is aborted.
 */
export async function together<T extends unknown[]>(...work: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  let failed: { err: unknown } | null = null;
  const results = await Promise.all(
    work.map((p) =>
      p.catch((err: unknown) => {
        failed ??= { err };
      }),
    ),
  );
  if (failed) throw (failed as { err: unknown }).err;
  return results as T;
}

/** Postgres error codes the service reacts to. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_SERIALIZATION_FAILURE = '40001';
export const PG_DEADLOCK = '40P01';

export function pgErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The name of the constraint a unique violation broke, when the driver reports it. */
export function pgConstraint(err: unknown): string | undefined {
  const c = (err as { constraint?: unknown })?.constraint;
  return typeof c === 'string' ? c : undefined;
}

const FROM_DATABASE = Symbol.for('pod.fromDatabase');

/** Marks an error thrown by the database client, so that only those are judged as database trouble. */
export function fromDatabase<E>(err: E): E {
  if (err && typeof err === 'object') (err as Record<symbol, unknown>)[FROM_DATABASE] = true;
  return err;
}

export const isFromDatabase = (err: unknown): boolean =>
  !!err && typeof err === 'object' && (err as Record<symbol, unknown>)[FROM_DATABASE] === true;

/** PostgreSQL aborted the transaction to break a deadlock or a serialization conflict: it did nothing. */
export const isAbortedByConflict = (err: unknown): boolean =>
  isFromDatabase(err) && [PG_DEADLOCK, PG_SERIALIZATION_FAILURE].includes(pgErrorCode(err) ?? '');

/** How many times a transaction aborted for a conflict runs in all before its conflict is thrown. */
export const CONFLICT_RUNS = 3;

/**
 * Runs a transaction again when PostgreSQL aborted it for a conflict with another one (which by
 * then has gone on), so that the caller gets the answer of a later run, up to CONFLICT_RUNS runs
 * in all. Each new run waits a few random milliseconds first, so that two transactions that keep
 * meeting on the same rows fall out of step. The last run's conflict is thrown; the error handler
 * answers it `503 write_conflict` with `Retry-After: 1` (nothing was written).
 */
export async function retriedOnConflict<T>(
  run: () => Promise<T>,
  pause: (ms: number) => Promise<void> = (ms) => new Promise((go) => setTimeout(go, ms)),
): Promise<T> {
  for (let runs = 1; ; runs++) {
    try {
      return await run();
    } catch (err) {
      if (!isAbortedByConflict(err) || runs >= CONFLICT_RUNS) throw err;
      await pause(runs * (5 + Math.random() * 20));
    }
  }
}

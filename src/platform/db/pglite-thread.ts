import type { Worker } from 'node:worker_threads';
import { type Db, type Executor, type Row, fromDatabase } from './types.ts';
import { threadLimits } from '../memory/young-generation.ts';
import { startModuleThread } from '../threads.ts';

/** What the worker is started with. */
export interface WorkerInit {
  dataDir?: string;
}

/** Main thread → worker. A transaction is named by the id of its `begin`. */
export type Request =
  | { id: number; op: 'query'; sql: string; params: unknown[]; tx?: number }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'listen'; channel: string }
  | { id: number; op: 'close' };

/** Worker → main thread, unasked: a NOTIFY on a channel the main thread listens on. */
export interface Notification {
  notify: string;
  payload: string;
}

export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean>;
}

/** Worker → main thread; id 0 is the worker's "started". */
export type Reply = Ok | { id: number; error: SerializedError };
type Ok = { id: number; rows: Row[] };

/** An error as PGlite threw it on the worker: same message, code, constraint, detail… */
function revive(e: SerializedError): Error {
  const err = Object.assign(new Error(e.message), e.fields);
  err.name = e.name;
  return fromDatabase(err);
}

/** The worker is gone (crashed or closed): like a lost connection, answered with 503. */
function lost(reason: string): Error {
  return fromDatabase(Object.assign(new Error(`the embedded database stopped: ${reason}`), { code: '08006' }));
}

/** The database thread's young generation is kept small (memory/young-generation.ts says why). */
const limits = threadLimits;

function startWorker(workerData: WorkerInit): Worker {
  return startModuleThread(new URL('./pglite-worker.ts', import.meta.url), { workerData, ...limits() });
}

/**
 * PGlite on a worker thread, behind the same `Db` as on the main thread: PGlite's WASM PostgreSQL
 * takes a whole core while it runs a statement, and on the event loop's thread HTTP and SQL never
 * overlapped. Statements of a transaction run on the worker in order, inside PGlite's own
 * transaction, so nothing else interleaves; errors keep PostgreSQL's fields, so the error handler
 * and the unique-violation checks work unchanged.
 */
export class PgliteThreadDb implements Db {
  readonly kind = 'pglite' as const;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private gone: Error | null = null;
  private closing: Promise<void> | null = null;
  private readonly listeners = new Map<string, Array<(payload: string) => void>>();

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply | Notification) => {
      if ('notify' in reply) {
        for (const l of this.listeners.get(reply.notify) ?? []) l(reply.payload);
        return;
      }
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      p.resolve(reply);
    });
    worker.on('error', (err) => this.fail(lost(err.message)));
    worker.on('exit', (code) => this.fail(lost(`worker exited with code ${code}`)));
  }

  static async open(options: WorkerInit): Promise<PgliteThreadDb> {
    const worker = startWorker(options);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      const onExit = (code: number) => reject(new Error(`the embedded database did not start (exit ${code})`));
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.once('message', (reply: Reply) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if ('error' in reply) reject(revive(reply.error));
        else resolve();
      });
    });
    // Idle, the worker does not keep the process alive; it is held while a request is under way.
    worker.unref();
    return new PgliteThreadDb(worker);
  }

  private fail(err: Error): void {
    this.gone ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  private async call(req: Request): Promise<Ok> {
    if (this.gone) throw this.gone;
    const reply = await new Promise<Reply>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(req.id, { resolve, reject });
      try {
        this.worker.postMessage(req);
      } catch (err) {
        // A parameter the structured clone cannot carry (a function, a symbol).
        this.pending.delete(req.id);
        if (this.pending.size === 0) this.worker.unref();
        reject(fromDatabase(err as Error));
      }
    });
    if ('error' in reply) throw revive(reply.error);
    return reply;
  }

  async query<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.call({ id: this.nextId++, op: 'query', sql, params })).rows as T[];
  }

  async tx<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    const tx = this.nextId++;
    // Not waited for: the transaction's first statements go right behind it, and the worker holds
    // them until PGlite has begun it (one round trip between threads less per transaction).
    const began = this.call({ id: tx, op: 'begin' });
    began.catch(() => {});
    const executor: Executor = {
      query: async <R extends Row>(sql: string, params: unknown[] = []) =>
        (await this.call({ id: this.nextId++, op: 'query', sql, params, tx })).rows as R[],
    };
    let result: T;
    try {
      result = await fn(executor);
      await began;
    } catch (err) {
      await this.call({ id: this.nextId++, op: 'end', tx, commit: false }).catch(() => {});
      throw err;
    }
    await this.call({ id: this.nextId++, op: 'end', tx, commit: true });
    return result;
  }

  /**
   * PGlite belongs to one process, whose writers invalidate their caches themselves; notifications
   * still matter for what triggers announce (an order changed by any statement).
   */
  listen(channel: string, onMessage: (payload: string) => void): void {
    const known = this.listeners.get(channel);
    this.listeners.set(channel, [...(known ?? []), onMessage]);
    if (!known) void this.call({ id: this.nextId++, op: 'listen', channel }).catch(() => {});
  }

  async exec(sql: string): Promise<void> {
    await this.call({ id: this.nextId++, op: 'exec', sql });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.gone) await this.call({ id: this.nextId++, op: 'close' });
      this.gone = lost('closed');
      await this.worker.terminate();
    })();
    return this.closing;
  }
}

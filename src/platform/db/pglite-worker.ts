/**
 * The worker thread that owns the embedded database (`PGLITE_THREAD=worker`, the default): PGlite's
 * WASM PostgreSQL runs here, so HTTP on the main thread and SQL here use both cores. One message in,
 * one reply out; see `pglite-thread.ts` for the other side and the protocol.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parse, protocol, type Transaction } from '@electric-sql/pglite';
import { rememberFileSizes } from './nodefs-sizes.ts';
import { createPglite } from './pglite.ts';
import { boundMessage, type WireValue } from './pglite-protocol.ts';
import type { Reply, Request, SerializedError, WorkerInit } from './pglite-thread.ts';
import type { Row } from './types.ts';

const port = parentPort;
if (!port) throw new Error('pglite-worker.ts runs only as a worker thread');

/** Every field PostgreSQL reports (code, constraint, detail, …) survives the trip to the main thread. */
function serialize(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(err))
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
  return { name: err.name, message: err.message, fields };
}

const send = (reply: Reply) => {
  try {
    port.postMessage(reply);
  } catch (err) {
    // Rows the structured clone cannot carry: the caller gets an error instead of waiting forever.
    port.postMessage({ id: reply.id, error: serialize(err) });
  }
};

interface OpenTx {
  t: Transaction | null;
  /** The transaction once PGlite has begun it: statements sent with the `begin` wait for it here. */
  ready: Promise<Transaction>;
  /** Resolved by the main thread's `end`: true commits, false rolls back. */
  finish: (commit: boolean) => void;
  endId: number | null;
}

const init = workerData as WorkerInit;
rememberFileSizes();
const pg = await createPglite({ dataDir: init.dataDir });
await pg.exec('SET plan_cache_mode = force_custom_plan');
const txs = new Map<number, OpenTx>();

/**
 * Every statement text becomes a named prepared statement on first use. In WASM, parsing and
 * analysing a statement costs three times what running a typical one does (1.5 ms against 0.4 ms
 * for the order read); a named statement pays it once. `force_custom_plan` (set at start) keeps
 * PostgreSQL planning each run with its values, as an unnamed statement would, so the optional
 * parameters of a list (`$2 IS NULL OR …`) never get a generic plan that scans.
 */
const statements = new Map<string, { name: string; types: number[] }>();
/** Texts built at run time (IN lists of varying length) must not grow the cache for ever. */
const MAX_STATEMENTS = 500;
let nextStatement = 1;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const noSync = { syncToFs: false } as const;

/** The named statement for a text, prepared (and its parameter types described) on first use. */
async function statement(sql: string): Promise<{ name: string; types: number[] }> {
  const known = statements.get(sql);
  if (known) {
    // Most recently used last: the first entry is the one to evict.
    statements.delete(sql);
    statements.set(sql, known);
    return known;
  }
  const { serialize } = protocol;
  const name = `s${nextStatement++}`;
  const described = await pg.execProtocol(
    concat([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]),
    noSync,
  );
  const prepared = { name, types: parse.parseDescribeStatementResults(described.messages) };
  if (statements.size >= MAX_STATEMENTS) {
    const [oldest, old] = statements.entries().next().value!;
    statements.delete(oldest);
    await pg.execProtocol(concat([serialize.close({ type: 'S', name: old.name }), serialize.sync()]), noSync);
  }
  statements.set(sql, prepared);
  return prepared;
}

/**
 * One statement in one call into the WASM PostgreSQL. PGlite's `query` makes six (parse, describe
 * the statement, bind, describe the portal, execute, sync), each a separate pass through its
 * protocol loop; here bind, describe, execute and sync go as one buffer to the prepared statement,
 * with the parameter types PostgreSQL described, so that PGlite's own serializers and result
 * parsers see exactly what they see in `query`. The buffer is built at its exact size
 * (`pglite-protocol.ts`), the messages PGlite's serializers would make.
 */
async function run(sql: string, params: unknown[], inTx: boolean): Promise<Row[]> {
  const { name, types } = await statement(sql);
  const values = params.map((v, i): WireValue => {
    if (v === null || v === undefined) return null;
    // Bytes go as a parameter in binary form, as node-postgres sends a Buffer: for text, its UTF-8.
    if (v instanceof Uint8Array) return v;
    const serializer = pg.serializers[types[i]];
    return serializer ? serializer(v) : String(v);
  });
  try {
    const { messages } = await pg.execProtocol(boundMessage(name, values), { syncToFs: !inTx });
    return (parse.parseResults(messages, pg.parsers)[0]?.rows ?? []) as Row[];
  } catch (err) {
    // A table changed under a prepared `SELECT *` (a migration): prepared anew on the next run.
    if ((err as { code?: string }).code === '0A000') statements.delete(sql);
    throw err;
  }
}

function begin(id: number): void {
  let finish: (commit: boolean) => void = () => {};
  const decided = new Promise<boolean>((resolve) => (finish = resolve));
  let started: (t: Transaction) => void = () => {};
  let failed: (err: unknown) => void = () => {};
  const ready = new Promise<Transaction>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  // Statements that wait for it see the failure; nobody else has to.
  ready.catch(() => {});
  const open: OpenTx = { t: null, ready, finish, endId: null };
  txs.set(id, open);
  // PGlite's own transaction holds its lock: statements outside it wait, exactly as on one thread.
  pg.transaction(async (t) => {
    open.t = t;
    started(t);
    send({ id, rows: [] });
    if (!(await decided)) await t.rollback();
  }).then(
    () => {
      txs.delete(id);
      if (open.endId !== null) send({ id: open.endId, rows: [] });
    },
    (err) => {
      failed(err);
      txs.delete(id);
      send({ id: open.endId ?? id, error: serialize(err) });
    },
  );
}

async function handle(msg: Request): Promise<Reply> {
  switch (msg.op) {
    case 'query': {
      // The locks PGlite's own `query` takes: outside a transaction, wait for any open one to end.
      if (msg.tx === undefined)
        return {
          id: msg.id,
          rows: await pg._runExclusiveTransaction(() => pg._runExclusiveQuery(() => run(msg.sql, msg.params, false))),
        };
      const open = txs.get(msg.tx);
      const t = open && (open.t ?? (await open.ready));
      if (!t || t.closed) throw new Error('Transaction is closed');
      return { id: msg.id, rows: await pg._runExclusiveQuery(() => run(msg.sql, msg.params, true)) };
    }
    case 'exec':
      await pg.exec(msg.sql);
      return { id: msg.id, rows: [] };
    case 'listen':
      await pg.listen(msg.channel, (payload) => port!.postMessage({ notify: msg.channel, payload }));
      return { id: msg.id, rows: [] };
    case 'close':
      if (!pg.closed) await pg.close();
      return { id: msg.id, rows: [] };
    default:
      throw new Error(`unknown request ${(msg as { op: string }).op}`);
  }
}

port.on('message', (msg: Request) => {
  if (msg.op === 'begin') return begin(msg.id);
  if (msg.op === 'end') {
    const open = txs.get(msg.tx);
    if (!open) return send({ id: msg.id, error: serialize(new Error('Transaction is closed')) });
    open.endId = msg.id;
    return open.finish(msg.commit);
  }
  handle(msg).then(send, (err) => send({ id: msg.id, error: serialize(err) }));
});
send({ id: 0, rows: [] });

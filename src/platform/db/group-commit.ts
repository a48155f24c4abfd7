import { runInScope } from '../context.ts';

/** The most items one batch takes: more wait for the next. */
const MAX_BATCH = 64;

/**
 * Batches written at the same time. On PostgreSQL one fills while the other commits. PGlite has one
 * connection, and a second batch can only wait for the first to commit, holding items that
 * arrived early in a smaller batch of its own: one at a time there makes POST /v2/orders about a
 * third faster and nearly halves its p99 at 200/s (decision 0149).
 */
const maxWriting = (db: { kind: 'pglite' | 'postgres' }) => (db.kind === 'pglite' ? 1 : 2);

/**
 * Group commit: an item submitted while batches are being written waits for the next batch, and
 * `write` writes a whole batch (in one transaction of its own) and returns each item's result, in
 * the batch's order. An item alone is written after one turn of the event loop, together with
 * whatever else was submitted in that turn. Each submitter's promise settles only after its batch's
 * `write` did, so nothing is answered before its commit. When a batch fails, its items are written
 * again one by one, so that only the item at fault fails.
 */
export function groupCommit<T, R>(db: { kind: 'pglite' | 'postgres' }, write: (batch: T[]) => Promise<R[]>) {
  type Waiting = { item: T; done: (err: unknown, result?: R) => void };
  const queue: Waiting[] = [];
  const MAX_WRITING = maxWriting(db);
  let writing = 0;

  async function drain(): Promise<void> {
    writing++;
    try {
      // Items submitted in the same turn of the event loop (a worker's batch of orders, made by
      // promises that settle together) go in one batch: without this turn the first would go alone,
      // the second in a batch of its own, and only the rest together.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (queue.length > 0) {
        const batch = queue.splice(0, MAX_BATCH);
        let results: R[];
        try {
          results = await write(batch.map((w) => w.item));
        } catch (err) {
          if (batch.length === 1) batch[0].done(err ?? new Error('write failed'));
          else
            for (const w of batch)
              await write([w.item]).then(
                ([r]) => w.done(null, r),
                (e: unknown) => w.done(e ?? new Error('write failed')),
              );
          continue;
        }
        for (const [i, w] of batch.entries()) w.done(null, results[i]);
      }
    } finally {
      writing--;
    }
  }

  return (item: T): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, done: (err, result) => (err === null ? resolve(result as R) : reject(err)) });
      // The batch is every waiting organization's work, not the work of the request that starts
      // it: out of its scope, each record takes its own organization's time (test clocks).
      if (writing < MAX_WRITING) void runInScope(drain, null);
    });
}

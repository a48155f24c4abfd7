import { runInScope } from '../../platform/context.ts';
import { together } from '../../platform/db/index.ts';
import type { OrdersDeps } from './deps.ts';
import { type AddressRow, type OrderlineRow, type OrderRow, ordersRepo as repo } from './repo.ts';
import { toOrder } from './view.ts';

/** A validated order, ready to be written but for its store's order number. */
export interface NewOrder {
  order: Omit<OrderRow, 'seq' | 'order_number'>;
  lines: OrderlineRow[];
  address?: AddressRow;
  storeCode: string;
}

const MAX_BATCH = 64;

export const stockLines = (o: { order: { id: string; created_at?: Date }; lines: OrderlineRow[] }) => ({
  orderId: o.order.id,
  at: o.order.created_at,
  lines: o.lines.map((l) => ({ productId: l.product_id, quantity: l.quantity })),
});
/**
 * Batches written at the same time. On PostgreSQL one fills while the other commits. PGlite has one
 * connection, and a second batch can only wait for the first to commit, holding orders that
 * arrived early in a smaller batch of its own. One at a time there took POST /v2/orders from
 * 292-313 to 392-452 orders/s, and its p99 at 200/s from 59-62 to 34-35 ms (docs/performance.md).
 */
const maxWriting = (db: { kind: 'pglite' | 'postgres' }) => (db.kind === 'pglite' ? 1 : 2);

/**
 * Group commit for order creation. An order arriving while batches are being written waits for the
 * next one; each batch takes its order numbers in one statement (per store, outside the
 * transaction, so no store row stays locked until commit) and writes its orders, lines, addresses
 * and `order.created` events, and reserves their stock, in one transaction. An order alone is written at
 * once. When a batch fails (a customIdentifier already taken, say), its orders are written one by
 * one, so that only the order at fault fails; the numbers the batch took stay unused.
 */
export function orderWriter(deps: Pick<OrdersDeps, 'db' | 'events' | 'organization' | 'catalog'>) {
  type Waiting = NewOrder & { done: (err: unknown) => void };
  const queue: Waiting[] = [];
  const MAX_WRITING = maxWriting(deps.db);
  let writing = 0;

  async function writeBatch(batch: NewOrder[]): Promise<void> {
    const counts = new Map<string, number>();
    for (const b of batch) counts.set(b.order.store_id, (counts.get(b.order.store_id) ?? 0) + 1);
    const last = await deps.organization.takeOrderNumbers(deps.db, counts);
    const next = new Map([...counts].map(([store, n]) => [store, last.get(store)! - n + 1]));
    const items = batch.map((b) => {
      const order_number = next.get(b.order.store_id)!;
      next.set(b.order.store_id, order_number + 1);
      return { ...b, order: { ...b.order, order_number } };
    });
    await deps.db.tx(async (tx) => {
      // Out of stock refuses the batch; written one by one, only the order that found no stock fails.
      // The stock, the orders and their events share no row, so their statements go together; the
      // items are the only rows two batches both lock, and the stock locks them in id order.
      await together(
        deps.catalog.reserveStock(tx, items.map(stockLines)),
        repo.insertOrders(tx, items),
        deps.events.recordMany(
          tx,
          items.map((i) => ({
            organizationId: i.order.organization_id,
            type: 'order.created',
            data: { order: toOrder(i.order as OrderRow, i.lines, i.storeCode) },
          })),
        ),
      );
    });
  }

  async function drain(): Promise<void> {
    writing++;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, MAX_BATCH);
        try {
          await writeBatch(batch);
          for (const w of batch) w.done(null);
        } catch (err) {
          if (batch.length === 1) batch[0].done(err ?? new Error('order write failed'));
          else
            for (const w of batch)
              await writeBatch([w]).then(
                () => w.done(null),
                (e: unknown) => w.done(e ?? new Error('order write failed')),
              );
        }
      }
    } finally {
      writing--;
    }
  }

  return {
    write(o: NewOrder): Promise<void> {
      return new Promise((resolve, reject) => {
        queue.push({ ...o, done: (err) => (err === null ? resolve() : reject(err)) });
        // The batch is every waiting organization's work, not the work of the request that starts
        // it: out of its scope, each record takes its own organization's time (test clocks).
        if (writing < MAX_WRITING) void runInScope(drain, null);
      });
    },
  };
}

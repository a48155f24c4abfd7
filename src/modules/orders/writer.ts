import { together } from '../../platform/db/index.ts';
import { groupCommit } from '../../platform/db/group-commit.ts';
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

export const stockLines = (o: { order: { id: string; created_at?: Date }; lines: OrderlineRow[] }) => ({
  orderId: o.order.id,
  at: o.order.created_at,
  lines: o.lines.map((l) => ({ productId: l.product_id, quantity: l.quantity })),
});

/**
 * Group commit for order creation (`groupCommit`, decision 0502): each batch takes its order numbers
 * in one statement (per store, outside the transaction, so no store row stays locked until commit)
 * and writes its orders, lines, addresses and `order.created` events, and reserves their stock, in
 * one transaction. A batch that fails (a customIdentifier already taken, say) is written order by
 * order, so that only the order at fault fails; the numbers the batch took stay unused.
 */
export function orderWriter(deps: Pick<OrdersDeps, 'db' | 'events' | 'organization' | 'catalog'>) {
  async function writeBatch(batch: NewOrder[]): Promise<void[]> {
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
    return batch.map(() => undefined);
  }

  const write = groupCommit(deps.db, writeBatch);
  return { write };
}

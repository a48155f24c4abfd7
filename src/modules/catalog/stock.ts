import type { Executor } from '../../platform/db/index.ts';
import { badRequest, mustFind } from '../../platform/errors.ts';
import { type Keyset, type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { catalogWrites as w } from './admin-repo.ts';
import type { CatalogDeps } from './deps.ts';
import type { ItemRow } from './repo.ts';
import { type StockLines, applyMovements, moveByItem } from './stock-ledger.ts';
import { type MovementRow, stockRepo as repo } from './stock-repo.ts';

export type { StockLines } from './stock-ledger.ts';

export const toMovement = (m: MovementRow) => ({
  kind: m.kind,
  logicalDelta: m.logical_delta,
  physicalDelta: m.physical_delta,
  logicalAfter: m.logical_after,
  physicalAfter: m.physical_after,
  orderReference: m.order_id,
  reason: m.reason,
  created: m.created_at.toISOString(),
});

/**
 * Stock moves with orders (reserve at creation, release on cancel, ship when the parcel leaves) and
 * with operators (receive, correct). Each movement locks its items in id order, changes them with a
 * relative UPDATE, writes a ledger row, and tells every product of an item whose available quantity
 * crossed zero (the `product.updated` webhook). All of it in the caller's transaction.
 */
export function stockMovements(deps: Pick<CatalogDeps, 'db' | 'clock' | 'cursors' | 'changes'>) {
  const { db } = deps;

  const operatorItem = async (tx: Executor, key: string) =>
    mustFind(await w.itemByKey(tx, key), 'Item', key) as ItemRow;
  const itemView = (i: ItemRow) => ({
    reference: i.id,
    sku: i.sku,
    logicalQuantity: i.logical_quantity,
    physicalQuantity: i.physical_quantity,
  });

  return {
    /**
     * Order creation: each line's blank is reserved. Refused with `product_not_orderable` when an
     * item would go below zero; `mayOversell` (replacement orders: support promised them) lets it.
     */
    async reserveStock(tx: Executor, orders: StockLines[], opts: { mayOversell?: boolean } = {}): Promise<void> {
      await moveByItem(deps, tx, 'reserve', orders, -1, opts);
    },
    /** Canceled quantities go back to the available stock. */
    async releaseStock(tx: Executor, order: StockLines): Promise<void> {
      await moveByItem(deps, tx, 'release', [order], 1);
    },
    /** The parcel left: the reserved blanks leave the shelf (physical quantity). */
    async shipStock(tx: Executor, orders: StockLines[]): Promise<void> {
      await moveByItem(deps, tx, 'ship', orders, -1);
    },
    /**
     * Reserved blanks used up without shipping (printed, then the line was canceled; damaged on the
     * floor): they leave the shelf, with a movement that names the reason.
     */
    async writeOffStock(tx: Executor, order: StockLines, reason: string): Promise<void> {
      await moveByItem(deps, tx, 'correct', [order], -1, { reason, writeOff: true });
    },
    /**
     * The floor used up a blank of an order line without shipping it (a misprint, a blank found
     * damaged) and takes another for the same line: the spoilt one leaves the shelf and the new one
     * is reserved, in one `correct` movement naming the reason. False, and nothing moves, when no
     * free blank is left to take.
     */
    async replaceBlank(tx: Executor, r: { orderId: string; productId: string; reason: string }): Promise<boolean> {
      const { itemOf, items } = await repo.lockItemsOfProducts(tx, [r.productId]);
      const item = items.find((i) => i.id === itemOf.get(r.productId));
      if (!item || item.logical_quantity < 1) return false;
      await applyMovements(
        deps,
        tx,
        'correct',
        [{ itemId: item.id, logical: -1, physical: -1, orderId: r.orderId, reason: r.reason }],
        {},
        items,
      );
      return true;
    },
    /** Operator: goods arrived; both quantities go up. */
    async receiveStock(key: string, quantity: number, reason: string) {
      return db.tx(async (tx) => {
        const item = await operatorItem(tx, key);
        const [after] = await applyMovements(deps, tx, 'receive', [
          { itemId: item.id, logical: quantity, physical: quantity, orderId: null, reason },
        ]);
        return { item: itemView(after) };
      });
    },
    /** Operator: a count or a damage changes the quantities by the given deltas; a reason is required. */
    async correctStock(key: string, c: { logicalDelta?: number; physicalDelta?: number; reason: string }) {
      if (!c.reason.trim()) throw badRequest('body.reason must say why the stock is corrected');
      if (!c.logicalDelta && !c.physicalDelta) throw badRequest('body: give a non-zero logicalDelta or physicalDelta');
      return db.tx(async (tx) => {
        const item = await operatorItem(tx, key);
        const logical = item.logical_quantity + (c.logicalDelta ?? 0);
        const physical = item.physical_quantity + (c.physicalDelta ?? 0);
        if (physical < 0) throw badRequest(`body.physicalDelta would leave ${physical} on the shelf`);
        if (logical > physical)
          throw badRequest(`body: the logical quantity (${logical}) cannot exceed the physical quantity (${physical})`);
        const [after] = await applyMovements(deps, tx, 'correct', [
          {
            itemId: item.id,
            logical: c.logicalDelta ?? 0,
            physical: c.physicalDelta ?? 0,
            orderId: null,
            reason: c.reason.trim(),
          },
        ]);
        return { item: itemView(after) };
      });
    },
    /** The ledger of one item, newest first. */
    async stockMovements(key: string, page: PageRequest) {
      const item = await operatorItem(db, key);
      return {
        item: itemView(item),
        ...(await listPage(deps.cursors, page, {
          plural: 'movements',
          load: (ks: Keyset) => repo.movements(db, item.id, ks),
          item: toMovement,
        })),
      };
    },
  };
}

import { type Executor, together } from '../../platform/db/index.ts';
import { ApiError, badRequest, mustFind } from '../../platform/errors.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { type Keyset, type PageRequest, listPage } from '../../platform/http/pagination.ts';
import type { CatalogDeps } from './deps.ts';
import { PRODUCT_CHANGED_JOB, STOCK_TOPIC, type ProductChange } from './events.ts';
import { type ItemRow, catalogWrites as w } from './repo.ts';
import { type MovementKind, type MovementRow, stockRepo as repo } from './stock-repo.ts';

/** One order's need of blanks: its lines' products and the quantities that move. */
export interface StockLines {
  orderId: string;
  lines: Array<{ productId: string; quantity: number }>;
  /** When the order's movements happen (its organization's time); default: now. */
  at?: Date;
}

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
  const { db, clock } = deps;

  async function apply(
    tx: Executor,
    kind: MovementKind,
    moves: Array<{
      itemId: string;
      logical: number;
      physical: number;
      orderId: string | null;
      reason: string | null;
      productId?: string;
      line?: number;
      at?: Date;
    }>,
    opts: { mayOversell?: boolean } = {},
    /** The items, already locked by the caller (orders lock them with their products). */
    locked?: ItemRow[],
  ): Promise<ItemRow[]> {
    const wanted = moves.filter((m) => m.logical !== 0 || m.physical !== 0);
    if (wanted.length === 0) return [];
    const ids = new Set(wanted.map((m) => m.itemId));
    const items = new Map(
      (locked ? locked.filter((i) => ids.has(i.id)) : await repo.lockItems(tx, [...ids])).map((i) => [i.id, i]),
    );
    const now = clock.now();
    const before = new Map([...items].map(([id, i]) => [id, i.logical_quantity]));
    const rows: Array<Omit<MovementRow, 'id'>> = [];
    for (const m of wanted) {
      const item = items.get(m.itemId)!;
      item.logical_quantity += m.logical;
      item.physical_quantity += m.physical;
      rows.push({
        item_id: item.id,
        kind,
        logical_delta: m.logical,
        physical_delta: m.physical,
        logical_after: item.logical_quantity,
        physical_after: item.physical_quantity,
        order_id: m.orderId,
        reason: m.reason,
        created_at: m.at ?? now,
      });
    }
    if (kind === 'reserve' && !opts.mayOversell) {
      for (const [id, i] of items) {
        if (i.logical_quantity >= 0 || i.logical_quantity >= before.get(id)!) continue;
        const left = Math.max(0, before.get(id)!);
        const m = wanted.find((x) => x.itemId === id)!;
        const where = m.line === undefined ? '' : `body.order.orderlines[${m.line}].productReference `;
        throw new ApiError(
          'product_not_orderable',
          `${where}${m.productId ?? id} is out of stock for this order: ${left} left`,
          { details: { productReference: m.productId ?? null, itemReference: id, availableQuantity: left } },
        );
      }
    }
    const itemMoves = [...items].map(([id, i]) => ({
      id,
      logical: i.logical_quantity - before.get(id)!,
      physical: rows.filter((r) => r.item_id === id).reduce((s, r) => s + r.physical_delta, 0),
    }));
    // Every node drops its cached stock figures (availableQuantity) on commit.
    await together(repo.applyMoves(tx, itemMoves, rows, now), deps.changes.announce(tx, STOCK_TOPIC));
    for (const [id, i] of items) {
      if (before.get(id)! > 0 === i.logical_quantity > 0) continue;
      for (const p of await w.productsOfItem(tx, id)) {
        const change: ProductChange = {
          productReference: p.id,
          organizationIds: p.private_organization_id ? [p.private_organization_id] : 'all',
          stockCrossedZero: true,
        };
        await enqueue(tx, clock, PRODUCT_CHANGED_JOB, change, { organizationId: null });
      }
    }
    deps.changes.changed(STOCK_TOPIC);
    return [...items.values()];
  }

  /** Each order line moves its product's item; the items are locked with the products, in one statement. */
  async function byItem(
    tx: Executor,
    kind: MovementKind,
    orders: StockLines[],
    sign: number,
    opts: { mayOversell?: boolean; reason?: string; writeOff?: boolean } = {},
  ) {
    const productIds = [...new Set(orders.flatMap((o) => o.lines.map((l) => l.productId)))];
    const { itemOf, items } = await repo.lockItemsOfProducts(tx, productIds);
    const moves = orders.flatMap((o) =>
      o.lines.map((l, line) => ({
        productId: l.productId,
        // The position names the line in a refusal; a batch of several orders is retried one by one.
        line: orders.length === 1 ? line : undefined,
        itemId: itemOf.get(l.productId)!,
        logical: kind === 'ship' || opts.writeOff ? 0 : sign * l.quantity,
        physical: kind === 'ship' || opts.writeOff ? sign * l.quantity : 0,
        orderId: o.orderId,
        reason: opts.reason ?? null,
        at: o.at,
      })),
    );
    await apply(
      tx,
      kind,
      moves.filter((m) => m.itemId !== undefined),
      opts,
      items,
    );
  }

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
      await byItem(tx, 'reserve', orders, -1, opts);
    },
    /** Canceled quantities go back to the available stock. */
    async releaseStock(tx: Executor, order: StockLines): Promise<void> {
      await byItem(tx, 'release', [order], 1);
    },
    /** The parcel left: the reserved blanks leave the shelf (physical quantity). */
    async shipStock(tx: Executor, orders: StockLines[]): Promise<void> {
      await byItem(tx, 'ship', orders, -1);
    },
    /**
     * Reserved blanks used up without shipping (printed, then the line was canceled; damaged on the
     * floor): they leave the shelf, with a movement that names the reason.
     */
    async writeOffStock(tx: Executor, order: StockLines, reason: string): Promise<void> {
      await byItem(tx, 'correct', [order], -1, { reason, writeOff: true });
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
      await apply(
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
        const [after] = await apply(tx, 'receive', [
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
        const [after] = await apply(tx, 'correct', [
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

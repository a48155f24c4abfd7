import { type Executor, together } from '../../platform/db/index.ts';
import { ApiError } from '../../platform/errors.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { catalogWrites as w } from './admin-repo.ts';
import type { CatalogDeps } from './deps.ts';
import { PRODUCT_CHANGED_JOB, STOCK_TOPIC, type ProductChange } from './events.ts';
import type { ItemRow } from './repo.ts';
import { type MovementKind, type MovementRow, stockRepo as repo } from './stock-repo.ts';

/** One order's need of blanks: its lines' products and the quantities that move. */
export interface StockLines {
  orderId: string;
  lines: Array<{ productId: string; quantity: number }>;
  /** When the order's movements happen (its organization's time); default: now. */
  at?: Date;
}

type LedgerDeps = Pick<CatalogDeps, 'clock' | 'changes'>;

/**
 * Moves stock in the caller's transaction: locks the items in id order, changes them with a
 * relative UPDATE, writes a ledger row each, and tells every product of an item whose available
 * quantity crossed zero (the `product.updated` webhook).
 */
export async function applyMovements(
  deps: LedgerDeps,
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
  const now = deps.clock.now();
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
      await enqueue(tx, deps.clock, PRODUCT_CHANGED_JOB, change, { organizationId: null });
    }
  }
  deps.changes.changed(STOCK_TOPIC);
  return [...items.values()];
}

/** Each order line moves its product's item; the items are locked with the products, in one statement. */
export async function moveByItem(
  deps: LedgerDeps,
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
  await applyMovements(
    deps,
    tx,
    kind,
    moves.filter((m) => m.itemId !== undefined),
    opts,
    items,
  );
}

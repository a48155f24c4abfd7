import type { Executor } from '../../platform/db/index.ts';

export type HoldReason = 'insufficient_balance' | 'preorder' | 'out_of_stock' | 'release_failed';

export interface HoldRow {
  order_id: string;
  organization_id: string;
  reason: HoldReason;
  message: string;
  since: Date;
  checked_at: Date;
}

export interface ReleaseCandidate {
  id: string;
  organization_id: string;
  status: 'pending' | 'preorder';
  created_at: Date;
}

/** An open line's need of blanks: what is left to make of it, and the item it comes from. */
export interface LineNeed {
  order_id: string;
  line_index: number;
  product_name: string;
  item_id: string;
  sku: string;
  open: number;
  awaiting_launch: boolean;
}

/** The SQL of the release: the orders due, their blanks against the shelf, and why some wait. */
export const holdsRepo = {
  /** Orders waiting for production, oldest first; `heldOnly`: those a release held already. */
  async candidates(
    ex: Executor,
    o: { heldOnly: boolean; createdBefore: Date | null; after: { at: Date; id: string } | null; limit: number },
  ): Promise<ReleaseCandidate[]> {
    return ex.query<ReleaseCandidate>(
      `SELECT o.id, o.organization_id, o.status, o.created_at FROM orders o
       WHERE o.status IN ('pending', 'preorder')
         AND (NOT $1 OR EXISTS (SELECT 1 FROM production_holds h WHERE h.order_id = o.id))
         AND ($2::timestamptz IS NULL OR o.created_at <= $2)
         AND ($3::timestamptz IS NULL OR (o.created_at, o.id) > ($3, $4))
       ORDER BY o.created_at, o.id LIMIT $5`,
      [o.heldOnly, o.createdBefore, o.after?.at ?? null, o.after?.id ?? '', o.limit],
    );
  },
  async needs(ex: Executor, orderIds: string[]): Promise<LineNeed[]> {
    if (orderIds.length === 0) return [];
    return ex.query<LineNeed>(
      `SELECT l.order_id, l.line_index, p.name AS product_name, p.item_id, i.sku,
              l.quantity - l.canceled_quantity - l.shipped_quantity AS open, l.awaiting_launch
       FROM orderlines l JOIN products p ON p.id = l.product_id JOIN items i ON i.id = p.item_id
       WHERE l.order_id = ANY($1::text[]) ORDER BY l.order_id, l.line_index`,
      [orderIds],
    );
  },
  /**
   * Blanks on the shelf not yet taken by orders in production: an order in production keeps its
   * blanks on the shelf (physical stock drops when the parcel ships) until its lines are made.
   */
  async shelf(ex: Executor, itemIds: string[]): Promise<Map<string, number>> {
    if (itemIds.length === 0) return new Map();
    const rows = await ex.query<{ id: string; free: number }>(
      `SELECT i.id, i.physical_quantity - coalesce((
         SELECT sum(l.quantity - l.canceled_quantity - l.shipped_quantity)
         FROM orderlines l JOIN orders o ON o.id = l.order_id JOIN products p ON p.id = l.product_id
         WHERE p.item_id = i.id AND o.status = 'in_production'), 0)::int AS free
       FROM items i WHERE i.id = ANY($1::text[])`,
      [itemIds],
    );
    return new Map(rows.map((r) => [r.id, Number(r.free)]));
  },
  /** Locks the items' rows for the caller's transaction, in one order (no deadlock between two starts). */
  async lockItems(ex: Executor, itemIds: string[]): Promise<void> {
    if (itemIds.length === 0) return;
    await ex.query('SELECT id FROM items WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [itemIds]);
  },
  /** Holds the order; `since` stays while the reason stays the same. */
  async hold(ex: Executor, h: Omit<HoldRow, 'since' | 'checked_at'>, at: Date): Promise<void> {
    await ex.query(
      `INSERT INTO production_holds (order_id, organization_id, reason, message, since, checked_at)
       VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (order_id) DO UPDATE SET message = EXCLUDED.message, checked_at = EXCLUDED.checked_at,
         since = CASE WHEN production_holds.reason = EXCLUDED.reason THEN production_holds.since ELSE EXCLUDED.since END,
         reason = EXCLUDED.reason`,
      [h.order_id, h.organization_id, h.reason, h.message, at],
    );
  },
  async clear(ex: Executor, orderId: string): Promise<void> {
    await ex.query('DELETE FROM production_holds WHERE order_id = $1', [orderId]);
  },
  /** Holds of orders that left the queue another way (canceled, started by hand). */
  async dropSettled(ex: Executor): Promise<void> {
    await ex.query(
      `DELETE FROM production_holds h USING orders o
       WHERE o.id = h.order_id AND o.status NOT IN ('pending', 'preorder')`,
    );
  },
  async holds(ex: Executor, orderIds: string[]): Promise<HoldRow[]> {
    if (orderIds.length === 0) return [];
    return ex.query<HoldRow>('SELECT * FROM production_holds WHERE order_id = ANY($1::text[])', [orderIds]);
  },
};

import type { Executor } from '../../platform/db/index.ts';
import type { ItemRow } from './repo.ts';

export type MovementKind = 'reserve' | 'release' | 'ship' | 'receive' | 'correct';

export interface MovementRow {
  id: number;
  item_id: string;
  kind: MovementKind;
  logical_delta: number;
  physical_delta: number;
  logical_after: number;
  physical_after: number;
  order_id: string | null;
  reason: string | null;
  created_at: Date;
}

/** The SQL of stock movements: item quantities and the ledger that records every change of them. */
export const stockRepo = {
  /** The item of each product (products of any organization: the caller already checked visibility). */
  async itemsOfProducts(ex: Executor, productIds: string[]): Promise<Map<string, string>> {
    const rows = await ex.query<{ id: string; item_id: string }>(
      'SELECT id, item_id FROM products WHERE id = ANY($1::text[])',
      [productIds],
    );
    return new Map(rows.map((r) => [r.id, r.item_id]));
  },
  /** Locks the items in id order, so two transactions taking the same items never deadlock. */
  async lockItems(ex: Executor, ids: string[]): Promise<ItemRow[]> {
    return ex.query<ItemRow>('SELECT * FROM items WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [ids]);
  },
  async move(ex: Executor, id: string, logical: number, physical: number, at: Date): Promise<void> {
    await ex.query(
      'UPDATE items SET logical_quantity = logical_quantity + $2, physical_quantity = physical_quantity + $3, updated_at = $4 WHERE id = $1',
      [id, logical, physical, at],
    );
  },
  async insertMovements(ex: Executor, rows: Array<Omit<MovementRow, 'id'>>): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof Omit<MovementRow, 'id'>>(k: K) => rows.map((r) => r[k]);
    await ex.query(
      `INSERT INTO stock_movements (item_id, kind, logical_delta, physical_delta, logical_after, physical_after, order_id, reason, created_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[], $9::timestamptz[])`,
      [
        col('item_id'),
        col('kind'),
        col('logical_delta'),
        col('physical_delta'),
        col('logical_after'),
        col('physical_after'),
        col('order_id'),
        col('reason'),
        col('created_at'),
      ],
    );
  },
  /** Newest first, keyset on id. */
  async movements(
    ex: Executor,
    itemId: string,
    ks: { after: number | null; limit: number },
  ): Promise<Array<MovementRow & { seq: number }>> {
    return ex.query(
      `SELECT *, id AS seq FROM stock_movements WHERE item_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
      [itemId, ks.after, ks.limit],
    );
  },
};

import type { Executor } from '../../platform/db/index.ts';
import { prepared } from '../../platform/db/prepared.ts';
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

const MOVEMENT_COLUMNS = [
  ['item_id', 'text'],
  ['kind', 'text'],
  ['logical_delta', 'int'],
  ['physical_delta', 'int'],
  ['logical_after', 'int'],
  ['physical_after', 'int'],
  ['order_id', 'text'],
  ['reason', 'text'],
  ['created_at', 'timestamptz'],
] as const;

/** The ledger's INSERT, its rows given as parameters from `$first` on (`movementColumns`). */
const insertMovements = (first: number) =>
  `INSERT INTO stock_movements (${MOVEMENT_COLUMNS.map(([c]) => c).join(', ')})
   SELECT * FROM unnest(${MOVEMENT_COLUMNS.map(([, t], i) => `$${first + i}::${t}[]`).join(', ')})`;
const INSERT_MOVEMENTS = insertMovements(1);
const APPLY_MOVES = prepared(
  `WITH moved AS (UPDATE items i SET logical_quantity = i.logical_quantity + x.l, physical_quantity = i.physical_quantity + x.p, updated_at = $1
     FROM unnest($2::text[], $3::int[], $4::int[]) AS x (id, l, p) WHERE i.id = x.id)
   ${insertMovements(5)}`,
);
const movementColumns = (rows: Array<Omit<MovementRow, 'id'>>) => MOVEMENT_COLUMNS.map(([c]) => rows.map((r) => r[c]));

/** The SQL of stock movements: item quantities and the ledger that records every change of them. */
export const stockRepo = {
  /**
   * The item of each product, locked in id order (products of any organization: the caller already
   * checked visibility). One statement: an order batch waits for it before anything else it writes.
   */
  async lockItemsOfProducts(
    ex: Executor,
    productIds: string[],
  ): Promise<{ itemOf: Map<string, string>; items: ItemRow[] }> {
    const rows = await ex.query<ItemRow & { product_id: string }>(
      prepared(
        'SELECT p.id AS product_id, i.* FROM products p JOIN items i ON i.id = p.item_id WHERE p.id = ANY($1::text[]) ORDER BY i.id FOR UPDATE OF i',
      ),
      [productIds],
    );
    const itemOf = new Map<string, string>();
    const items = new Map<string, ItemRow>();
    for (const { product_id, ...item } of rows) {
      itemOf.set(product_id, item.id);
      items.set(item.id, item);
    }
    return { itemOf, items: [...items.values()] };
  },
  /** Locks the items in id order, so two transactions taking the same items never deadlock. */
  async lockItems(ex: Executor, ids: string[]): Promise<ItemRow[]> {
    return ex.query<ItemRow>('SELECT * FROM items WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [ids]);
  },
  async insertMovements(ex: Executor, rows: Array<Omit<MovementRow, 'id'>>): Promise<void> {
    if (rows.length === 0) return;
    await ex.query(INSERT_MOVEMENTS, movementColumns(rows));
  },
  /**
   * Changes the items by their deltas and writes the ledger rows, in one statement: an order batch
   * moves several items, and on PGlite each statement is a round trip between threads.
   */
  async applyMoves(
    ex: Executor,
    items: Array<{ id: string; logical: number; physical: number }>,
    rows: Array<Omit<MovementRow, 'id'>>,
    at: Date,
  ): Promise<void> {
    await ex.query(APPLY_MOVES, [
      at,
      items.map((i) => i.id),
      items.map((i) => i.logical),
      items.map((i) => i.physical),
      ...movementColumns(rows),
    ]);
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

import type { Executor } from '../../platform/db/index.ts';
import type { UnitState } from './floor-repo.ts';

export type QcReason = 'misprint' | 'damaged_blank';
export type PickingProblem = 'blank_damaged_at_picking' | 'blank_missing_at_picking';
export type RemakeReason = QcReason | PickingProblem;

/** A scanned case with what the stations show of it: its line's product and its order's state. */
export interface ScannedUnit {
  id: string;
  order_id: string;
  organization_id: string;
  order_status: string;
  shipping_kind: 'dropship' | 'combined';
  store_id: string;
  line_index: number;
  unit_no: number;
  state: UnitState;
  batch_id: string | null;
  product_id: string;
  product_name: string;
  sku: string;
  hold_message: string | null;
}

export interface UnitHoldRow {
  unit_id: string;
  organization_id: string;
  reason: RemakeReason;
  message: string;
  since: Date;
  product_id: string;
  state: UnitState;
}

const UNIT_SELECT = `SELECT u.id, u.order_id, u.organization_id, o.status AS order_status, o.shipping_kind, o.store_id, u.line_index, u.unit_no, u.state,
       u.batch_id, p.id AS product_id, p.name AS product_name, i.sku, h.message AS hold_message
  FROM floor_units u JOIN orders o ON o.id = u.order_id
  JOIN orderlines l ON l.order_id = u.order_id AND l.line_index = u.line_index
  JOIN products p ON p.id = l.product_id JOIN items i ON i.id = p.item_id
  LEFT JOIN unit_holds h ON h.unit_id = u.id`;

/** The SQL of the QC and pack stations and of the cases held for want of a blank. */
export const stationsRepo = {
  /** The scanned unit, locked with its order when `lock` (a scan changes them). */
  async unit(ex: Executor, id: string, lock = false): Promise<ScannedUnit | null> {
    const rows = await ex.query<ScannedUnit>(`${UNIT_SELECT} WHERE u.id = $1${lock ? ' FOR UPDATE OF u, o' : ''}`, [
      id,
    ]);
    return rows[0] ?? null;
  },
  /** The cases of the orders, in the orders' order, then by line and copy. */
  async unitsOfOrders(ex: Executor, orderIds: string[]): Promise<ScannedUnit[]> {
    return ex.query<ScannedUnit>(
      `${UNIT_SELECT} WHERE u.order_id = ANY($1::text[])
        ORDER BY array_position($1::text[], u.order_id), u.line_index, u.unit_no`,
      [orderIds],
    );
  },
  /** Open lines without artwork: they have no units and come off the shelf at packing. */
  async shelfLines(
    ex: Executor,
    orderIds: string[],
  ): Promise<Array<{ order_id: string; line_index: number; open: number; product_name: string; sku: string }>> {
    return ex.query(
      `SELECT l.order_id, l.line_index, l.quantity - l.canceled_quantity - l.shipped_quantity AS open, p.name AS product_name, i.sku
         FROM orderlines l JOIN products p ON p.id = l.product_id JOIN items i ON i.id = p.item_id
        WHERE l.order_id = ANY($1::text[]) AND l.image_id IS NULL AND l.quantity - l.canceled_quantity - l.shipped_quantity > 0
        ORDER BY array_position($1::text[], l.order_id), l.line_index`,
      [orderIds],
    );
  },
  async hold(ex: Executor, h: { unitId: string; orgId: string; reason: RemakeReason; message: string }, at: Date) {
    await ex.query(
      `INSERT INTO unit_holds (unit_id, organization_id, reason, message, since) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (unit_id) DO UPDATE SET reason = EXCLUDED.reason, message = EXCLUDED.message, since = EXCLUDED.since`,
      [h.unitId, h.orgId, h.reason, h.message, at],
    );
  },
  async release(ex: Executor, unitId: string): Promise<void> {
    await ex.query('DELETE FROM unit_holds WHERE unit_id = $1', [unitId]);
  },
  /** Cases waiting for a blank, oldest first (locked when `lock`, skipping those another scan holds). */
  async holds(ex: Executor, limit: number): Promise<UnitHoldRow[]> {
    return ex.query<UnitHoldRow>(
      `SELECT h.*, l.product_id, u.state FROM unit_holds h JOIN floor_units u ON u.id = h.unit_id
         JOIN orderlines l ON l.order_id = u.order_id AND l.line_index = u.line_index
        ORDER BY h.since, h.unit_id LIMIT $1`,
      [limit],
    );
  },
};

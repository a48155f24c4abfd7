import type { Executor } from '../../platform/db/index.ts';
import type { UnitState } from './floor-repo.ts';

export interface OpenOrderRow {
  id: string;
  organization_name: string;
  status: 'pending' | 'preorder' | 'in_production';
  created_at: Date;
  held: string | null;
  produced: boolean;
  unit_states: UnitState[] | null;
}

/** The SQL of the production overview: open orders with their floor stage, and the floor's days. */
export const overviewRepo = {
  /** Open orders, oldest first, with their hold, their units' states and whether they are produced. */
  async openOrders(ex: Executor, limit: number): Promise<OpenOrderRow[]> {
    return ex.query<OpenOrderRow>(
      `SELECT o.id, g.name AS organization_name, o.status, o.created_at,
              (SELECT h.reason FROM production_holds h WHERE h.order_id = o.id) AS held,
              EXISTS (SELECT 1 FROM produced_orders p WHERE p.order_id = o.id) AS produced,
              (SELECT array_agg(DISTINCT u.state) FROM floor_units u
                WHERE u.order_id = o.id AND u.state <> 'canceled') AS unit_states
         FROM orders o JOIN organizations g ON g.id = o.organization_id
        WHERE o.status IN ('pending', 'preorder', 'in_production')
        ORDER BY o.created_at, o.id LIMIT $1`,
      [limit],
    );
  },
  /**
   * Cases per factory day since `since`: printed, through QC (passed, failed by reason), packed,
   * and blanks replaced at picking (a unit's event that keeps its state, or takes it out of its batch).
   */
  async unitDays(
    ex: Executor,
    since: Date,
    zone: string,
  ): Promise<Array<{ day: string; to_state: UnitState; reason: string | null; n: number }>> {
    return ex.query(
      `SELECT to_char((e.at AT TIME ZONE $2)::date, 'YYYY-MM-DD') AS day, e.to_state,
              CASE WHEN e.to_state = 'qc_failed' OR e.reason LIKE 'blank\\_%' THEN e.reason END AS reason,
              count(*)::int AS n
         FROM floor_unit_events e
        WHERE e.at >= $1 AND e.from_state IS NOT NULL
          AND (e.to_state IN ('printed', 'qc_passed', 'qc_failed', 'packed') OR e.reason LIKE 'blank\\_%')
          AND (e.to_state <> 'awaiting_batch' OR e.from_state = 'batched')
        GROUP BY 1, 2, 3`,
      [since, zone],
    );
  },
  /** Parcels that left per factory day since `since`. */
  async shippedDays(ex: Executor, since: Date, zone: string): Promise<Array<{ day: string; n: number }>> {
    return ex.query(
      `SELECT to_char((shipped_at AT TIME ZONE $2)::date, 'YYYY-MM-DD') AS day, count(*)::int AS n
         FROM shipments WHERE shipped_at >= $1 GROUP BY 1`,
      [since, zone],
    );
  },
};

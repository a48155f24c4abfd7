import type { Executor } from '../../platform/db/index.ts';
import type { OrderStatus } from './repo.ts';

/** The orders' share of the partner overview: orders per day and status, spend and counts. */
export const activityRepo = {
  async ordersPerDay(ex: Executor, orgId: string, since: Date) {
    return ex.query<{ day: string; status: OrderStatus; n: number }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status, count(*)::int AS n
       FROM orders WHERE organization_id = $1 AND created_at >= $2 GROUP BY 1, 2`,
      [orgId, since],
    );
  },

  /** Products (less canceled units) and shipping of the orders placed since, canceled orders left out. */
  async spendCents(ex: Executor, orgId: string, since: Date): Promise<number> {
    const [row] = await ex.query<{ cents: string | null }>(
      `SELECT (SELECT coalesce(sum(l.unit_price_cents * (l.quantity - l.canceled_quantity)), 0)
                 FROM orderlines l JOIN orders o ON o.id = l.order_id
                WHERE o.organization_id = $1 AND o.created_at >= $2 AND o.status <> 'canceled')
            + (SELECT coalesce(sum(shipping_cents), 0) FROM orders
                WHERE organization_id = $1 AND created_at >= $2 AND status <> 'canceled') AS cents`,
      [orgId, since],
    );
    return Number(row?.cents ?? 0);
  },

  async counts(ex: Executor, orgId: string) {
    const [row] = await ex.query<{ orders: number; in_production: number; shipped: number }>(
      `SELECT (SELECT count(*)::int FROM orders WHERE organization_id = $1) AS orders,
              (SELECT count(*)::int FROM orders WHERE organization_id = $1 AND status = 'in_production') AS in_production,
              (SELECT count(*)::int FROM orders WHERE organization_id = $1 AND status = 'shipped') AS shipped`,
      [orgId],
    );
    return row;
  },
};

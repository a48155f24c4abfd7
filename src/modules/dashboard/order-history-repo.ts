import type { Executor } from '../../platform/db/index.ts';

/** What happened to one order, from the events outbox, webhook deliveries and callback jobs. */
export const orderHistoryRepo = {
  /** Events about the order (kept 30 days), each with its webhook deliveries. */
  async events(ex: Executor, orgId: string, orderId: string) {
    return ex.query<{
      id: string;
      type: string;
      data: Record<string, unknown>;
      created_at: Date;
      deliveries: Array<{
        id: string;
        status: string;
        url: string;
        attempts: Array<{ at: string; responseStatus: number | null; error: string | null }>;
      }> | null;
    }>(
      `SELECT e.id, e.type, e.data, e.created_at,
              (SELECT json_agg(json_build_object('id', d.id, 'status', d.status,
                        'attempts', d.attempts, 'url', w.url) ORDER BY d.seq)
                 FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
                WHERE d.event_id = e.id AND d.organization_id = $1) AS deliveries
         FROM events e
        WHERE e.organization_id = $1 AND e.type LIKE 'order.%' AND e.data->'order'->>'reference' = $2
        ORDER BY e.seq LIMIT 200`,
      [orgId, orderId],
    );
  },

  async renders(ex: Executor, orgId: string, imageIds: string[]) {
    if (imageIds.length === 0) return [];
    return ex.query<{ id: string; image_id: string }>(
      `SELECT id, image_id FROM renders WHERE organization_id = $1 AND image_id = ANY($2::text[])
         AND status = 'completed' ORDER BY completed_at DESC LIMIT 12`,
      [orgId, imageIds],
    );
  },
};

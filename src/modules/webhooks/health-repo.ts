import type { Executor } from '../../platform/db/index.ts';
import type { Attempt } from './repo.ts';

/** The dashboard's reads of endpoints, deliveries and events: health, trouble and one order's history. */
export const healthRepo = {
  /** Endpoints whose deliveries fail, or that are switched off. */
  async unhealthyEndpoints(ex: Executor, orgId: string) {
    return ex.query<{
      id: string;
      url: string;
      enabled: boolean;
      disabled_reason: string | null;
      failing_since: Date | null;
    }>(
      `SELECT id, url, enabled, disabled_reason, failing_since FROM webhook_endpoints
       WHERE organization_id = $1 AND deleted_at IS NULL AND (failing_since IS NOT NULL OR NOT enabled)
       ORDER BY failing_since NULLS LAST, seq`,
      [orgId],
    );
  },

  /**
   * Health of every endpoint: deliveries finished since `since` (succeeded or failed), when it
   * started failing, and the error of its newest failed attempt.
   */
  async endpointHealth(ex: Executor, orgId: string, since: Date) {
    return ex.query<{
      id: string;
      failing_since: Date | null;
      succeeded: number;
      failed: number;
      last_error: string | null;
    }>(
      `SELECT w.id, w.failing_since,
              (SELECT count(*)::int FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.status = 'succeeded' AND d.updated_at >= $2) AS succeeded,
              (SELECT count(*)::int FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.status = 'failed' AND d.updated_at >= $2) AS failed,
              (SELECT coalesce(a->>'error', 'HTTP ' || (a->>'responseStatus'))
                 FROM webhook_deliveries d, LATERAL (SELECT d.attempts -> (jsonb_array_length(d.attempts) - 1) AS a) last
                WHERE d.endpoint_id = w.id AND jsonb_array_length(d.attempts) > 0
                  AND (last.a->>'error' IS NOT NULL OR (last.a->>'responseStatus')::int NOT BETWEEN 200 AND 299)
                ORDER BY d.updated_at DESC LIMIT 1) AS last_error
         FROM webhook_endpoints w WHERE w.organization_id = $1 AND w.deleted_at IS NULL`,
      [orgId, since],
    );
  },

  /** Events about the order (kept 30 days), each with its webhook deliveries. */
  async orderEvents(ex: Executor, orgId: string, orderId: string) {
    return ex.query<{
      id: string;
      type: string;
      data: Record<string, unknown>;
      created_at: Date;
      deliveries: Array<{ id: string; status: string; url: string; attempts: Attempt[] }> | null;
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
};

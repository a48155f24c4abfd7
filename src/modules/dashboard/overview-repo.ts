import type { Executor } from '../../platform/db/index.ts';

/** The read model of the partner overview: counts across orders, claims and webhooks of one organization. */
export const overviewRepo = {
  async counts(ex: Executor, orgId: string) {
    const [row] = await ex.query<{
      open_claims: number;
      endpoints: number;
      keys: number;
    }>(
      `SELECT (SELECT count(*)::int FROM claims WHERE organization_id = $1 AND status = 'pending') AS open_claims,
              (SELECT count(*)::int FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL) AS endpoints,
              (SELECT count(*)::int FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL) AS keys`,
      [orgId],
    );
    return row;
  },

  /**
   * Rendertokens spent per hour since `since` (each render is charged its composition's cost when
   * requested). Hours, not days: the week's days are Amsterdam days, and its offsets are whole hours.
   */
  async rendertokensPerHour(ex: Executor, orgId: string, since: Date) {
    return ex.query<{ hour: Date; tokens: number }>(
      `SELECT date_trunc('hour', r.created_at) AS hour, sum(c.token_cost)::int AS tokens
         FROM renders r JOIN compositions c ON c.id = r.composition_id
        WHERE r.organization_id = $1 AND r.created_at >= $2
        GROUP BY 1 ORDER BY 1`,
      [orgId, since],
    );
  },

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
   * Health of every endpoint: deliveries finished in the last 24 h (succeeded or failed), when it
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

  /** The newest completed render of each image, for mockup thumbnails next to the artwork. */
  async latestRenders(ex: Executor, orgId: string, imageIds: string[]) {
    if (imageIds.length === 0) return [];
    return ex.query<{ image_id: string; id: string }>(
      `SELECT DISTINCT ON (image_id) image_id, id FROM renders
       WHERE organization_id = $1 AND image_id = ANY($2::text[]) AND status = 'completed'
       ORDER BY image_id, completed_at DESC`,
      [orgId, imageIds],
    );
  },
};

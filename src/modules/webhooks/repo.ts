import { type Executor, organizationPage, prepared } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';

export interface EventRow {
  id: string;
  seq: number;
  organization_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}
export interface EndpointRow {
  id: string;
  seq: number;
  organization_id: string;
  url: string;
  event_types: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}
export interface Attempt {
  at: string;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}
export interface DeliveryRow {
  id: string;
  seq: number;
  organization_id: string;
  endpoint_id: string;
  event_id: string;
  resend_of: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Attempt[];
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Joined from the event. */
  event_type: string;
}

const DELIVERY = `SELECT d.*, e.type AS event_type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`;

const EVENT_PAGE = organizationPage('$1', '$5');
const DELIVERY_PAGE = organizationPage('$1', '$5', 'd.');

export const webhooksRepo = {
  /**
   * Writes events and returns, per event, the endpoints subscribed to it (enabled, not deleted, in
   * creation order): one round trip, and one statement text whatever the number of events.
   */
  async insertEvents(
    ex: Executor,
    events: Array<{ id: string; organizationId: string; type: string; data: unknown; createdAt: Date }>,
  ): Promise<Array<{ event_id: string; endpoint_id: string }>> {
    return ex.query<{ event_id: string; endpoint_id: string }>(
      prepared(
        `WITH n AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS n (id, organization_id, type, data, created_at)),
       e AS (INSERT INTO events (id, organization_id, type, data, created_at) SELECT id, organization_id, type, data::jsonb, created_at FROM n)
       SELECT n.id AS event_id, w.id AS endpoint_id FROM n JOIN webhook_endpoints w
         ON w.organization_id = n.organization_id AND w.enabled AND w.deleted_at IS NULL AND n.type = ANY(w.event_types)
       ORDER BY n.id, w.seq`,
      ),
      [
        events.map((e) => e.id),
        events.map((e) => e.organizationId),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => e.createdAt),
      ],
    );
  },
  /** Adds `n` to each object's sequence; returns the new last numbers. */
  async bumpSequences(ex: Executor, counts: Map<string, number>): Promise<Map<string, number>> {
    const rows = await ex.query<{ object_id: string; sequence: string | number }>(
      prepared(
        `INSERT INTO object_sequences (object_id, sequence) SELECT * FROM unnest($1::text[], $2::bigint[])
         ON CONFLICT (object_id) DO UPDATE SET sequence = object_sequences.sequence + EXCLUDED.sequence
         RETURNING object_id, sequence`,
      ),
      // Sorted, so that two transactions touching the same objects lock them in the same order.
      [[...counts.keys()].sort(), [...counts.keys()].sort().map((k) => counts.get(k)!)],
    );
    return new Map(rows.map((r) => [r.object_id, Number(r.sequence)]));
  },
  async event(ex: Executor, orgId: string, id: string): Promise<EventRow | null> {
    return (
      (await ex.query<EventRow>('SELECT * FROM events WHERE organization_id = $1 AND id = $2', [orgId, id]))[0] ?? null
    );
  },
  /**
   * A keyset page that only the organization's indexes can serve (`organizationPage`): events are
   * the largest table, and with `organization_id = $1 … ORDER BY seq` PostgreSQL may walk the
   * unique `seq` index through every newer event of other organizations. With a type, the
   * `(organization_id, type, seq)` index serves it the same way.
   */
  async events(
    ex: Executor,
    orgId: string,
    f: { type?: string; createdAfter?: Date; createdBefore?: Date },
    ks: Keyset,
  ): Promise<EventRow[]> {
    const page =
      f.type === undefined
        ? EVENT_PAGE
        : {
            where:
              'organization_id >= $1 AND organization_id <= $1 AND ($5::bigint IS NULL OR (organization_id, type, seq) < ($1::text, $2::text, $5::bigint))',
            order: 'organization_id DESC, type DESC, seq DESC',
          };
    return ex.query<EventRow>(
      `SELECT * FROM events WHERE ${page.where} AND ($2::text IS NULL OR type = $2)
         AND ($3::timestamptz IS NULL OR created_at > $3) AND ($4::timestamptz IS NULL OR created_at < $4)
       ORDER BY ${page.order} LIMIT $6`,
      [orgId, f.type ?? null, f.createdAfter ?? null, f.createdBefore ?? null, ks.after, ks.limit],
    );
  },
  /** Events past retention go with their deliveries (ON DELETE CASCADE). */
  async purgeEvents(ex: Executor, before: Date): Promise<number> {
    return (await ex.query('DELETE FROM events WHERE created_at < $1 RETURNING id', [before])).length;
  },

  async insertEndpoint(
    ex: Executor,
    e: {
      id: string;
      organizationId: string;
      url: string;
      eventTypes: string[];
      description: string | null;
      secretEnc: string;
      now: Date;
    },
  ) {
    await ex.query(
      `INSERT INTO webhook_endpoints (id, organization_id, url, event_types, description, secret_enc, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [e.id, e.organizationId, e.url, e.eventTypes, e.description, e.secretEnc, e.now],
    );
  },
  async countEndpoints(ex: Executor, orgId: string): Promise<number> {
    return (
      await ex.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL',
        [orgId],
      )
    )[0].n;
  },
  async endpoint(ex: Executor, orgId: string, id: string): Promise<EndpointRow | null> {
    return (
      (
        await ex.query<EndpointRow>(
          'SELECT * FROM webhook_endpoints WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL',
          [orgId, id],
        )
      )[0] ?? null
    );
  },
  /** Also a deleted one: a queued delivery learns from it that it has nowhere to go. */
  async endpointById(ex: Executor, id: string): Promise<EndpointRow | null> {
    return (await ex.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1', [id]))[0] ?? null;
  },
  async endpoints(ex: Executor, orgId: string, ks: Keyset): Promise<EndpointRow[]> {
    return ex.query<EndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3',
      [orgId, ks.after, ks.limit],
    );
  },
  async updateEndpoint(
    ex: Executor,
    orgId: string,
    id: string,
    p: { url?: string; eventTypes?: string[]; description?: string | null; enabled?: boolean; now: Date },
  ) {
    // Re-enabling clears the reason and the failure streak: the partner says the receiver is fixed.
    await ex.query(
      `UPDATE webhook_endpoints SET
         url = COALESCE($3, url),
         event_types = COALESCE($4, event_types),
         description = CASE WHEN $5 THEN $6 ELSE description END,
         enabled = COALESCE($7, enabled),
         disabled_reason = CASE WHEN $7 IS NULL THEN disabled_reason ELSE NULL END,
         failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END,
         updated_at = $8
       WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [
        orgId,
        id,
        p.url ?? null,
        p.eventTypes ?? null,
        'description' in p,
        p.description ?? null,
        p.enabled ?? null,
        p.now,
      ],
    );
  },
  async deleteEndpoint(ex: Executor, orgId: string, id: string, now: Date) {
    await ex.query(
      'UPDATE webhook_endpoints SET deleted_at = $3, enabled = false, updated_at = $3 WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL',
      [orgId, id, now],
    );
  },
  async rotateSecret(
    ex: Executor,
    orgId: string,
    id: string,
    s: { secretEnc: string; previousEnc: string; previousExpiresAt: Date; now: Date },
  ) {
    await ex.query(
      `UPDATE webhook_endpoints SET secret_enc = $3, previous_secret_enc = $4, previous_secret_expires_at = $5, updated_at = $6
       WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [orgId, id, s.secretEnc, s.previousEnc, s.previousExpiresAt, s.now],
    );
  },
  /** A success ends a failure streak. */
  async endpointSucceeded(ex: Executor, id: string) {
    await ex.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [
      id,
    ]);
  },
  /** Starts (or continues) a failure streak; returns when it started. */
  async endpointFailed(ex: Executor, id: string, at: Date): Promise<Date | null> {
    const rows = await ex.query<{ failing_since: Date }>(
      'UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since',
      [id, at],
    );
    return rows[0]?.failing_since ?? null;
  },
  /** True when this call disabled it (it was enabled). */
  async disableEndpoint(ex: Executor, id: string, reason: string, now: Date): Promise<boolean> {
    const rows = await ex.query(
      'UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, updated_at = $3 WHERE id = $1 AND enabled RETURNING id',
      [id, reason, now],
    );
    return rows.length > 0;
  },

  async insertDelivery(
    ex: Executor,
    d: {
      id: string;
      organizationId: string;
      endpointId: string;
      eventId: string;
      resendOf: string | null;
      nextAttemptAt: Date;
      now: Date;
    },
  ) {
    await ex.query(
      prepared(
        `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, resend_of, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      ),
      [d.id, d.organizationId, d.endpointId, d.eventId, d.resendOf, d.nextAttemptAt, d.now],
    );
  },
  async delivery(ex: Executor, orgId: string, id: string): Promise<DeliveryRow | null> {
    return (
      (await ex.query<DeliveryRow>(`${DELIVERY} WHERE d.organization_id = $1 AND d.id = $2`, [orgId, id]))[0] ?? null
    );
  },
  async deliveryById(ex: Executor, id: string): Promise<DeliveryRow | null> {
    return (await ex.query<DeliveryRow>(`${DELIVERY} WHERE d.id = $1`, [id]))[0] ?? null;
  },
  async eventById(ex: Executor, id: string): Promise<EventRow | null> {
    return (await ex.query<EventRow>('SELECT * FROM events WHERE id = $1', [id]))[0] ?? null;
  },
  async deliveries(
    ex: Executor,
    orgId: string,
    f: { endpointId?: string; eventId?: string; status?: string },
    ks: Keyset,
  ): Promise<DeliveryRow[]> {
    return ex.query<DeliveryRow>(
      `${DELIVERY} WHERE ${DELIVERY_PAGE.where} AND ($2::text IS NULL OR d.endpoint_id = $2) AND ($3::text IS NULL OR d.event_id = $3)
         AND ($4::text IS NULL OR d.status = $4)
       ORDER BY ${DELIVERY_PAGE.order} LIMIT $6`,
      [orgId, f.endpointId ?? null, f.eventId ?? null, f.status ?? null, ks.after, ks.limit],
    );
  },
  /**
   * Records attempt number `attempt` only if it is still the next one of a pending delivery, so a
   * re-run job (lease taken over after a crash) cannot record twice. Returns false when stale.
   */
  async recordAttempt(
    ex: Executor,
    id: string,
    attempt: number,
    a: Attempt,
    next: { status: DeliveryRow['status']; nextAttemptAt: Date | null; now: Date },
  ): Promise<boolean> {
    const rows = await ex.query(
      `UPDATE webhook_deliveries SET attempts = attempts || $3::jsonb, status = $4, next_attempt_at = $5, updated_at = $6
       WHERE id = $1 AND status = 'pending' AND jsonb_array_length(attempts) = $2 - 1 RETURNING id`,
      [id, attempt, JSON.stringify([a]), next.status, next.nextAttemptAt, next.now],
    );
    return rows.length === 1;
  },
  /** The endpoint's pending deliveries say their next attempt comes no sooner than `until`. */
  async deferEndpointDeliveries(ex: Executor, endpointId: string, until: Date): Promise<void> {
    await ex.query(
      `UPDATE webhook_deliveries SET next_attempt_at = $2
       WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at < $2`,
      [endpointId, until],
    );
  },
  /** Gives up on a pending delivery without an attempt (its endpoint was deleted or disabled). */
  async abandonDelivery(ex: Executor, id: string, attempt: number, a: Attempt, now: Date): Promise<void> {
    await webhooksRepo.recordAttempt(ex, id, attempt, a, { status: 'failed', nextAttemptAt: null, now });
  },
};

import type { Static } from 'typebox';
import { ApiError, conflict, mustFind } from '../../platform/errors.ts';
import { retryAfterSeconds } from '../../platform/ratelimit/index.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { checkCallbackUrl } from '../../platform/http/targets.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { WebhooksDeps } from './deps.ts';
import { createDelivery, purgeExpiredEvents } from './events.ts';
import { type DeliveryRow, type EndpointRow, type EventRow, webhooksRepo as repo } from './repo.ts';
import type { CreateEndpoint, UpdateEndpoint } from './schemas.ts';
import { generateSecret } from './secrets.ts';

const HOUR = 3600_000;
/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * HOUR;
export const MAX_ENDPOINTS = 50;

export const toEndpoint = (e: EndpointRow, now: Date) => ({
  reference: e.id,
  url: e.url,
  eventTypes: e.event_types,
  description: e.description,
  enabled: e.enabled,
  disabledReason: e.disabled_reason,
  previousSecretExpires:
    e.previous_secret_expires_at && e.previous_secret_expires_at > now
      ? e.previous_secret_expires_at.toISOString()
      : null,
  created: e.created_at.toISOString(),
  updated: e.updated_at.toISOString(),
});

export const toDelivery = (d: DeliveryRow) => ({
  reference: d.id,
  endpointReference: d.endpoint_id,
  eventReference: d.event_id,
  eventType: d.event_type,
  status: d.status,
  attempts: d.attempts,
  nextAttempt: d.next_attempt_at ? d.next_attempt_at.toISOString() : null,
  resendOf: d.resend_of,
  created: d.created_at.toISOString(),
});

export const toEvent = (e: EventRow) => ({
  reference: e.id,
  type: e.type,
  timestamp: e.created_at.toISOString(),
  data: e.data,
});

type CreateInput = Static<typeof CreateEndpoint>['webhookEndpoint'];
type UpdateInput = Static<typeof UpdateEndpoint>['webhookEndpoint'];

export type WebhooksService = ReturnType<typeof webhooksService>;

/** Endpoint management, the delivery log and the events list of one organization at a time. */
/** The test ping answers inside its request: a short time-out, and a few a minute. */
const TEST_PING_POLICY = { name: 'webhook-tests', quota: 10, windowSeconds: 60 };

export function webhooksService(deps: WebhooksDeps) {
  const { db, clock, cursors, box } = deps;
  const checkUrl = (url: string) =>
    checkCallbackUrl(url, {
      allowPrivate: deps.config.allowPrivateTargets,
      field: 'body.webhookEndpoint.url',
    }).toString();
  const unique = (types: string[]) => [...new Set(types)];

  async function endpointRow(orgId: string, ref: string): Promise<EndpointRow> {
    return mustFind(
      isReference('Webhookendpoint', ref) ? await repo.endpoint(db, orgId, ref) : null,
      'Webhook endpoint',
      ref,
    );
  }
  async function deliveryRow(orgId: string, ref: string): Promise<DeliveryRow> {
    return mustFind(isReference('Delivery', ref) ? await repo.delivery(db, orgId, ref) : null, 'Webhook delivery', ref);
  }

  const service = {
    /** Events past retention, with their deliveries (the hourly maintenance job). */
    purgeExpiredEvents: (now: Date) => purgeExpiredEvents(db, now),
    async listEndpoints(orgId: string, page: PageRequest) {
      const now = clock.now();
      return listPage(cursors, page, {
        plural: 'webhookEndpoints',
        scope: 'webhook-endpoints',
        load: (ks) => repo.endpoints(db, orgId, ks),
        item: (e) => toEndpoint(e, now),
      });
    },
    async endpoint(orgId: string, ref: string) {
      return toEndpoint(await endpointRow(orgId, ref), clock.now());
    },
    /** The secret is returned here and on rotation only; it is stored sealed. */
    async createEndpoint(orgId: string, input: CreateInput) {
      const url = checkUrl(input.url);
      const secret = generateSecret();
      const id = newReference('Webhookendpoint');
      await db.tx(async (tx) => {
        if ((await repo.countEndpoints(tx, orgId)) >= MAX_ENDPOINTS) {
          throw conflict(
            'webhook_endpoint_limit_reached',
            `An organization can have at most ${MAX_ENDPOINTS} webhook endpoints; delete one first`,
          );
        }
        await repo.insertEndpoint(tx, {
          id,
          organizationId: orgId,
          url,
          eventTypes: unique(input.eventTypes),
          description: input.description ?? null,
          secretEnc: box.seal(secret),
          now: clock.now(),
        });
      });
      return { ...(await service.endpoint(orgId, id)), secret };
    },
    async updateEndpoint(orgId: string, ref: string, input: UpdateInput) {
      await endpointRow(orgId, ref);
      const url = input.url === undefined ? undefined : checkUrl(input.url);
      const patch: Parameters<typeof repo.updateEndpoint>[3] = { now: clock.now() };
      if (url !== undefined) patch.url = url;
      if (input.eventTypes !== undefined) patch.eventTypes = unique(input.eventTypes);
      if (input.description !== undefined) patch.description = input.description;
      if (input.enabled !== undefined) patch.enabled = input.enabled;
      await repo.updateEndpoint(db, orgId, ref, patch);
      return service.endpoint(orgId, ref);
    },
    /** Deleted endpoints stay as rows so the delivery log keeps its references; queued retries stop. */
    async deleteEndpoint(orgId: string, ref: string) {
      await endpointRow(orgId, ref);
      await repo.deleteEndpoint(db, orgId, ref, clock.now());
    },
    /** The previous secret keeps signing, next to the new one, for ROTATION_OVERLAP_MS. */
    async rotateSecret(orgId: string, ref: string) {
      const row = await endpointRow(orgId, ref);
      const secret = generateSecret();
      const now = clock.now();
      await repo.rotateSecret(db, orgId, ref, {
        secretEnc: box.seal(secret),
        previousEnc: row.secret_enc,
        previousExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
        now,
      });
      return { ...(await service.endpoint(orgId, ref)), secret };
    },
    /**
     * Sends a `ping` now, inside the request, and returns the delivery with its first attempt. The
     * first job is queued for after the time-out as a safety net: if this process dies mid-attempt
     * the worker makes the attempt; otherwise that job finds it already made and does nothing.
     */
    async testEndpoint(orgId: string, ref: string) {
      const row = await endpointRow(orgId, ref);
      const budget = await deps.rateLimits.consume(`webhook-tests:${orgId}`, [TEST_PING_POLICY]);
      if (!budget.allowed) {
        const retry = retryAfterSeconds(budget.waitSeconds);
        throw new ApiError('rate_limited', `At most ${TEST_PING_POLICY.quota} test pings a minute; wait ${retry} s`, {
          headers: {
            'retry-after': String(retry),
          },
        });
      }
      const now = clock.now();
      const deliveryId = await db.tx(async (tx) => {
        const event = await deps.events.record(tx, {
          organizationId: orgId,
          type: 'ping',
          data: { webhookEndpoint: { reference: row.id, url: row.url } },
        });
        return createDelivery(tx, clock, {
          organizationId: orgId,
          endpointId: row.id,
          eventId: event.reference,
          firstAttemptAt: new Date(now.getTime() + deps.config.callbackTimeoutMs + 60_000),
        });
      });
      // Without an HTTP answer it answers no sooner than its time-out: a refused port and a
      // filtered one (whose connection only times out) must look alike.
      const timeoutMs = deps.config.webhookTestTimeoutMs;
      await deps.attempts.attempt(deliveryId, 1, { timeoutMs, minFailureMs: timeoutMs });
      return toDelivery((await repo.delivery(db, orgId, deliveryId))!);
    },

    async listDeliveries(
      orgId: string,
      q: PageRequest & { endpointReference?: string; eventReference?: string; status?: string },
    ) {
      const filter = { endpointId: q.endpointReference, eventId: q.eventReference, status: q.status };
      return listPage(cursors, q, {
        plural: 'webhookDeliveries',
        scope: 'webhook-deliveries',
        load: (ks) => repo.deliveries(db, orgId, filter, ks),
        item: toDelivery,
      });
    },
    async delivery(orgId: string, ref: string) {
      return toDelivery(await deliveryRow(orgId, ref));
    },
    /** A new delivery of the same event (same webhook-id) to the same endpoint, starting now. */
    async resend(orgId: string, ref: string) {
      const original = await deliveryRow(orgId, ref);
      const endpoint = await repo.endpointById(db, original.endpoint_id);
      if (!endpoint || endpoint.deleted_at)
        throw conflict(
          'webhook_endpoint_deleted',
          `Webhook endpoint ${original.endpoint_id} was deleted; there is nowhere to resend to`,
        );
      if (!endpoint.enabled)
        throw conflict(
          'webhook_endpoint_disabled',
          `Webhook endpoint ${endpoint.id} is disabled; enable it (PATCH enabled: true) before resending`,
        );
      const id = await db.tx((tx) =>
        createDelivery(tx, clock, {
          organizationId: orgId,
          endpointId: endpoint.id,
          eventId: original.event_id,
          resendOf: original.id,
        }),
      );
      return service.delivery(orgId, id);
    },

    async listEvents(orgId: string, q: PageRequest & { type?: string; createdAfter?: string; createdBefore?: string }) {
      const filter = {
        type: q.type,
        createdAfter: q.createdAfter ? new Date(q.createdAfter) : undefined,
        createdBefore: q.createdBefore ? new Date(q.createdBefore) : undefined,
      };
      return listPage(cursors, q, {
        plural: 'events',
        load: (ks) => repo.events(db, orgId, filter, ks),
        item: toEvent,
      });
    },
    async event(orgId: string, ref: string) {
      const row = mustFind(isReference('Event', ref) ? await repo.event(db, orgId, ref) : null, 'Event', ref);
      return toEvent(row);
    },
  };
  return service;
}

import type { Static } from 'typebox';
import { conflict, mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { checkCallbackUrl } from '../../platform/http/targets.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { deliveryLog } from './delivery-log.ts';
import type { WebhooksDeps } from './deps.ts';
import { purgeExpiredEvents } from './events.ts';
import { type EndpointRow, webhooksRepo as repo } from './repo.ts';
import type { CreateEndpoint, UpdateEndpoint } from './schemas.ts';
import { webhookHealth } from './health.ts';
import { generateSecret } from './secrets.ts';
import { sendTestPing } from './test-ping.ts';
import { toEndpoint } from './views.ts';

const HOUR = 3600_000;
/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * HOUR;
export const MAX_ENDPOINTS = 50;

export { toDelivery, toEndpoint, toEvent } from './views.ts';
export type { EndpointHealth, EndpointTrouble, EventDelivery, OrderEvent } from './health.ts';

type CreateInput = Static<typeof CreateEndpoint>['webhookEndpoint'];
type UpdateInput = Static<typeof UpdateEndpoint>['webhookEndpoint'];

export type WebhooksService = ReturnType<typeof webhooksService>;

/**
 * Endpoint management of one organization at a time, with the test ping (test-ping.ts), the
 * delivery log and the events list (delivery-log.ts).
 */
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
    /** Sends a `ping` now, inside the request (test-ping.ts). */
    testEndpoint: async (orgId: string, ref: string) => sendTestPing(deps, orgId, await endpointRow(orgId, ref)),

    ...deliveryLog(deps),
    ...webhookHealth(db),
  };
  return service;
}

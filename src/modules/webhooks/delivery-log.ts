import { conflict, mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference } from '../../platform/ids.ts';
import type { WebhooksDeps } from './deps.ts';
import { createDelivery } from './events.ts';
import { type DeliveryRow, webhooksRepo as repo } from './repo.ts';
import { toDelivery, toEvent } from './views.ts';

/** The delivery log (with resending) and the events list of one organization at a time. */
export function deliveryLog(deps: Pick<WebhooksDeps, 'db' | 'clock' | 'cursors'>) {
  const { db, clock, cursors } = deps;
  async function deliveryRow(orgId: string, ref: string): Promise<DeliveryRow> {
    return mustFind(isReference('Delivery', ref) ? await repo.delivery(db, orgId, ref) : null, 'Webhook delivery', ref);
  }
  return {
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
      return toDelivery(await deliveryRow(orgId, id));
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
}

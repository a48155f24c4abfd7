import type { Executor } from '../../platform/db/index.ts';
import { healthRepo } from './health-repo.ts';
import { webhooksRepo } from './repo.ts';

/** An endpoint that is failing or switched off (the partner overview's alert). */
export interface EndpointTrouble {
  reference: string;
  url: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
}

/** How one endpoint's deliveries went since a given instant. */
export interface EndpointHealth {
  reference: string;
  failingSince: Date | null;
  succeeded: number;
  failed: number;
  /** The error (or `HTTP <status>`) of its newest failed attempt, however old. */
  lastError: string | null;
}

/** One delivery of an event to an endpoint, with its attempts. */
export interface EventDelivery {
  reference: string;
  status: string;
  url: string;
  attempts: Array<{ at: string; responseStatus: number | null; error: string | null }>;
}

/** An event about an order, as the order's timeline shows it. */
export interface OrderEvent {
  reference: string;
  type: string;
  data: Record<string, unknown>;
  created: Date;
  deliveries: EventDelivery[];
}

/** The webhook side of the partner dashboard: endpoint health and an order's events. */
export function webhookHealth(db: Executor) {
  return {
    /** Endpoints not deleted. */
    endpointCount: (orgId: string) => webhooksRepo.countEndpoints(db, orgId),
    async endpointsInTrouble(orgId: string): Promise<EndpointTrouble[]> {
      return (await healthRepo.unhealthyEndpoints(db, orgId)).map((e) => ({
        reference: e.id,
        url: e.url,
        enabled: e.enabled,
        disabledReason: e.disabled_reason,
        failingSince: e.failing_since,
      }));
    },
    async endpointHealth(orgId: string, since: Date): Promise<EndpointHealth[]> {
      return (await healthRepo.endpointHealth(db, orgId, since)).map((h) => ({
        reference: h.id,
        failingSince: h.failing_since,
        succeeded: h.succeeded,
        failed: h.failed,
        lastError: h.last_error,
      }));
    },
    /** Events about the order (kept 30 days), oldest first, each with its deliveries. */
    async orderEvents(orgId: string, orderRef: string): Promise<OrderEvent[]> {
      return (await healthRepo.orderEvents(db, orgId, orderRef)).map((e) => ({
        reference: e.id,
        type: e.type,
        data: e.data,
        created: e.created_at,
        deliveries: (e.deliveries ?? []).map((d) => ({
          reference: d.id,
          status: d.status,
          url: d.url,
          attempts: d.attempts.map((a) => ({ at: a.at, responseStatus: a.responseStatus, error: a.error })),
        })),
      }));
    },
  };
}

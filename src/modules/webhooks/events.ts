import { type Clock, nowFor } from '../../platform/clock.ts';
import { runInScope } from '../../platform/context.ts';
import type { Db, Executor } from '../../platform/db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { webhooksRepo as repo } from './repo.ts';

/** Every event type the service emits; `ping` only comes from POST /webhook-endpoints/{ref}/test. */
export const EVENT_TYPES = [
  'order.created',
  'order.updated',
  'order.shipped',
  'shipment.created',
  'shipment.tracking_updated',
  'shipment.delivered',
  'claim.created',
  'claim.updated',
  'render.completed',
  'render.failed',
  'product.updated',
  'webhook_endpoint.disabled',
  'ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const DELIVER_JOB = 'webhooks.deliver';
/** Purges expired events when a job of this kind is queued; the service queues none itself (maintenance purges hourly). */
export const PURGE_JOB = 'events.purge';
const DAY = 24 * 3600_000;
/** Events (and their deliveries) are kept this long. */
export const EVENT_RETENTION_MS = 30 * DAY;

/** Deletes events past retention, with their deliveries (the hourly maintenance job calls this). */
export async function purgeExpiredEvents(db: Db, now: Date): Promise<number> {
  return repo.purgeEvents(db, new Date(now.getTime() - EVENT_RETENTION_MS));
}

export interface EventInput {
  organizationId: string;
  type: string;
  /** The resource as its GET endpoint returns it, under its resource name (`{order: {...}}`). */
  data: Record<string, unknown>;
}

/** Deliveries to one endpoint share a lane: one attempt in flight, pushed back together on refusal. */
export const endpointLane = (endpointId: string) => `webhook-endpoint:${endpointId}`;

/**
 * Queues attempt `attempt` of a delivery. The dedupe key makes a second enqueue of the same attempt
 * a no-op; a job failing on infrastructure (database) errors is retried by the worker a few times.
 */
export async function enqueueAttempt(
  tx: Executor,
  clock: Clock,
  delivery: { id: string; organizationId: string; endpointId: string },
  attempt: number,
  runAt: Date,
): Promise<void> {
  await enqueue(
    tx,
    clock,
    DELIVER_JOB,
    { deliveryId: delivery.id, attempt },
    {
      runAt,
      maxAttempts: 5,
      dedupeKey: `${DELIVER_JOB}:${delivery.id}:${attempt}`,
      organizationId: delivery.organizationId,
      lane: endpointLane(delivery.endpointId),
    },
  );
}

/** Writes a delivery row and its first job, in the caller's transaction. */
export async function createDelivery(
  tx: Executor,
  clock: Clock,
  d: { organizationId: string; endpointId: string; eventId: string; resendOf?: string | null; firstAttemptAt?: Date },
): Promise<string> {
  const id = newReference('Delivery');
  const now = clock.now();
  const runAt = d.firstAttemptAt ?? now;
  await repo.insertDelivery(tx, {
    id,
    organizationId: d.organizationId,
    endpointId: d.endpointId,
    eventId: d.eventId,
    resendOf: d.resendOf ?? null,
    nextAttemptAt: runAt,
    now,
  });
  await enqueueAttempt(tx, clock, { id, organizationId: d.organizationId, endpointId: d.endpointId }, 1, runAt);
  return id;
}

/** The field of an event's data that holds its object, by the first word of its type. */
const OBJECT_FIELD: Record<string, string> = {
  order: 'order',
  shipment: 'shipment',
  claim: 'claim',
  render: 'render',
  product: 'product',
  webhook_endpoint: 'webhookEndpoint',
};

/** The object an event is about (a `ping` is about none): events about one object are numbered in sequence. */
function objectOf(e: EventInput): string | null {
  const field = OBJECT_FIELD[e.type.split('.')[0]];
  if (!field) return null;
  const ref = (e.data[field] as { reference?: unknown } | undefined)?.reference;
  if (typeof ref !== 'string') return null;
  // Every organization that sees a product numbers its own events about it, without gaps.
  return e.type.startsWith('product.') ? `${ref}@${e.organizationId}` : ref;
}

/**
 * Each event about an object gets the next number of that object, taken in the event's
 * transaction: the object's row lock orders concurrent writers, so numbers follow commit order
 * per object and a receiver can drop an event older than one it already applied.
 */
async function nextSequences(tx: Executor, list: EventInput[]): Promise<Array<number | undefined>> {
  const objects = list.map(objectOf);
  const counts = new Map<string, number>();
  for (const o of objects) if (o) counts.set(o, (counts.get(o) ?? 0) + 1);
  if (counts.size === 0) return objects.map(() => undefined);
  const last = await repo.bumpSequences(tx, counts);
  const next = new Map([...counts].map(([o, n]) => [o, last.get(o)! - n]));
  return objects.map((o) => {
    if (!o) return undefined;
    const n = next.get(o)! + 1;
    next.set(o, n);
    return n;
  });
}

export type EventsService = ReturnType<typeof eventsService>;
/** The outbox as the modules that emit events use it: the one events port, in each module's deps. */
export type EventsPort = Pick<EventsService, 'record' | 'recordMany'>;

/**
 * The outbox other modules write their events through. `record` runs in the caller's transaction:
 * the event, one delivery per subscribed endpoint and their jobs exist exactly when the change
 * that caused them commits.
 */
export function eventsService(deps: { clock: Clock }) {
  const { clock } = deps;

  /** Several events in the same round trips as one (order creation writes them in batches). */
  async function recordMany(tx: Executor, list: EventInput[]): Promise<Array<{ reference: string }>> {
    for (const e of list)
      if (!(EVENT_TYPES as readonly string[]).includes(e.type)) throw new Error(`unknown event type ${e.type}`);
    const sequences = await nextSequences(tx, list);
    // A batch may hold several organizations' events: each is dated, and delivered, in its own
    // organization's time (test clocks).
    const rows = list.map((e, i) => ({
      id: newReference('Event'),
      organizationId: e.organizationId,
      type: e.type,
      data: sequences[i] === undefined ? e.data : { ...e.data, sequence: sequences[i] },
      createdAt: nowFor(clock, e.organizationId),
    }));
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const s of await repo.insertEvents(tx, rows)) {
      const organizationId = byId.get(s.event_id)!.organizationId;
      await runInScope(
        () => createDelivery(tx, clock, { organizationId, endpointId: s.endpoint_id, eventId: s.event_id }),
        organizationId,
      );
    }
    return rows.map((r) => ({ reference: r.id }));
  }

  return {
    types: EVENT_TYPES,
    record: async (tx: Executor, e: EventInput): Promise<{ reference: string }> => (await recordMany(tx, [e]))[0],
    recordMany,
  };
}

export const unknownEventType = (field: string, type: string) =>
  badRequest(`${field} contains an unknown event type "${type}"; known types: ${EVENT_TYPES.join(', ')}`);

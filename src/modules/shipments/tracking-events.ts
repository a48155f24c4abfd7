import type { Clock } from '../../platform/clock.ts';
import type { Db, Executor } from '../../platform/db/index.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { newReference, randomId } from '../../platform/ids.ts';
import type { EventsPort } from '../webhooks/events.ts';
import {
  type NewTrackingEvent,
  type ShipmentRow,
  TRACKING_STATUSES,
  type TrackingEventRow,
  type TrackingFacts,
  type TrackingStatus,
  shipmentsRepo as repo,
} from './repo.ts';

export interface TrackingEventIn {
  status: string;
  occurred?: string;
  location?: string | null;
  description?: string | null;
}

export interface CarrierEventIn extends TrackingEventIn {
  shipmentReference?: string;
  trackingNumber?: string;
  carrierEventId: string;
}

export interface IngestResult {
  index: number;
  result: 'accepted' | 'duplicate' | 'refused';
  shipmentReference: string | null;
  reason?: string;
}

/** Carriers' clocks and ours disagree a little; further ahead is a mistake in the feed. */
const FUTURE_TOLERANCE_MS = 15 * 60_000;

/** The parcel's state is its latest event by when it happened, whatever order events arrived in. */
export function currentStatus(events: TrackingEventRow[]): TrackingStatus | null {
  return events.length ? events[events.length - 1].status : null;
}

export const trackingEventView = (e: TrackingEventRow) => ({
  status: e.status,
  occurred: e.occurred_at.toISOString(),
  location: e.location,
  description: e.description,
});

/**
 * What the carrier's events mean for the business: the delivery date (claim windows count from
 * it), a return to sender, and an exception that needs an operator. A carrier refusal stays until
 * the operator's retry clears it; a parcel moving again clears an exception or a lost flag.
 */
export function trackingFacts(s: ShipmentRow, all: TrackingEventRow[], now: Date): TrackingFacts {
  const delivered = all.find((e) => e.status === 'delivered');
  const returned = delivered ? undefined : all.find((e) => e.status === 'returned');
  const status = currentStatus(all);
  let attention = s.attention;
  let since = s.attention_since;
  const flag = returned ? 'returned' : status === 'exception' ? 'exception' : null;
  if (flag && attention !== flag && attention !== 'refused') {
    attention = flag;
    since = now;
  } else if (!flag && (attention === 'exception' || attention === 'lost' || attention === 'returned')) {
    attention = null;
    since = null;
  }
  return {
    delivered_at: delivered?.occurred_at ?? null,
    returned_at: returned?.occurred_at ?? null,
    attention,
    attention_since: since,
    tracking_seen_at: now,
  };
}

/** Why an event cannot belong to the shipment, or null. */
export function trackingProblem(
  s: ShipmentRow,
  e: TrackingEventIn,
  now: Date,
): { field: string; reason: string } | null {
  if (s.level === 'basic')
    return { field: '', reason: `shipment ${s.id} is a basic shipment: it has no carrier tracking` };
  if (!(TRACKING_STATUSES as readonly string[]).includes(e.status))
    return { field: 'status', reason: `unknown status "${e.status}"; known: ${TRACKING_STATUSES.join(', ')}` };
  const at = e.occurred === undefined ? now : new Date(e.occurred);
  if (!Number.isFinite(at.getTime())) return { field: 'occurred', reason: 'is not a timestamp' };
  if (at.getTime() < s.shipped_at.getTime())
    return {
      field: 'occurred',
      reason: `lies before the shipment left (${s.shipped_at.toISOString()})`,
    };
  if (at.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) return { field: 'occurred', reason: 'lies in the future' };
  return null;
}

type ApplyDeps = {
  clock: Clock;
  events: EventsPort;
  view: (ex: Executor, s: ShipmentRow) => Promise<Record<string, unknown>>;
};

/** Stores new events of one shipment (locked) and announces what changed. */
async function applyEvents(
  deps: ApplyDeps,
  tx: Executor,
  s: ShipmentRow,
  list: Array<TrackingEventIn & { carrierEventId: string }>,
) {
  const { clock, events, view } = deps;
  await repo.lockShipment(tx, s.id);
  const before = currentStatus(await repo.trackingEvents(tx, s.id));
  const now = clock.now();
  const rows: NewTrackingEvent[] = list.map((e) => ({
    id: newReference('Trackingevent'),
    organization_id: s.organization_id,
    shipment_id: s.id,
    carrier_event_id: e.carrierEventId,
    status: e.status as TrackingStatus,
    occurred_at: e.occurred === undefined ? now : new Date(e.occurred),
    location: e.location ?? null,
    description: e.description ?? null,
    created_at: now,
  }));
  const inserted = new Set(await repo.insertTrackingEvents(tx, rows));
  if (inserted.size > 0) {
    const all = await repo.trackingEvents(tx, s.id);
    const after = currentStatus(all);
    await repo.setTrackingFacts(tx, s.id, trackingFacts((await repo.byId(tx, s.id))!, all, now));
    const data = { shipment: await view(tx, s) };
    const out = [{ organizationId: s.organization_id, type: 'shipment.tracking_updated', data }];
    if (after === 'delivered' && before !== 'delivered')
      out.push({ organizationId: s.organization_id, type: 'shipment.delivered', data });
    await events.recordMany(tx, out);
  }
  return rows.map((r) => inserted.has(r.id));
}

/**
 * Tracking events of shipments, from the test helper (scripted journeys) and from carrier feeds
 * through the operator API. Events are stored once per (shipment, carrier event id); a late
 * event takes its place in time and never moves a delivered parcel back.
 */
export function trackingEvents(deps: {
  db: Db;
  clock: Clock;
  events: EventsPort;
  view: (ex: Executor, s: ShipmentRow) => Promise<Record<string, unknown>>;
}) {
  const { db, clock } = deps;
  return {
    /** Test helper: the whole script or nothing; a bad event is a 400 naming it. */
    async script(s: ShipmentRow, list: TrackingEventIn[], field: string): Promise<void> {
      const now = clock.now();
      for (const [i, e] of list.entries()) {
        const p = trackingProblem(s, e, now);
        if (!p) continue;
        if (!p.field) throw conflict('shipment_not_tracked', p.reason);
        throw badRequest(
          `${field}[${i}].${p.field} ${p.reason}`,
          p.field === 'occurred' && p.reason.startsWith('lies before')
            ? 'tracking_event_before_shipment'
            : 'invalid_request',
        );
      }
      await db.tx((tx) =>
        applyEvents(
          deps,
          tx,
          s,
          list.map((e) => ({ ...e, carrierEventId: `test_${randomId(20)}` })),
        ),
      );
    },

    /**
     * A carrier feed (operator): each event is judged on its own; refused ones are reported with
     * their reason and the rest of the batch is kept. Sending the same carrier event again is a
     * harmless `duplicate`.
     */
    async ingest(list: CarrierEventIn[]): Promise<IngestResult[]> {
      const shipments = await repo.shipmentsByKeys(
        db,
        list.flatMap((e) => (e.shipmentReference ? [e.shipmentReference] : [])),
        list.flatMap((e) => (e.trackingNumber ? [e.trackingNumber] : [])),
      );
      const find = (e: CarrierEventIn) =>
        shipments.find((s) =>
          e.shipmentReference ? s.id === e.shipmentReference : s.tracking_number === e.trackingNumber,
        );
      const now = clock.now();
      const results: IngestResult[] = [];
      const groups = new Map<ShipmentRow, Array<{ index: number; e: CarrierEventIn }>>();
      for (const [index, e] of list.entries()) {
        const s = find(e);
        if (!s) {
          const key = e.shipmentReference ?? e.trackingNumber;
          results.push({ index, result: 'refused', shipmentReference: null, reason: `unknown shipment ${key}` });
          continue;
        }
        const p = trackingProblem(s, e, now);
        if (p) {
          results.push({
            index,
            result: 'refused',
            shipmentReference: s.id,
            reason: p.field ? `${p.field} ${p.reason}` : p.reason,
          });
          continue;
        }
        groups.set(s, [...(groups.get(s) ?? []), { index, e }]);
      }
      for (const [s, items] of groups) {
        const fresh = await db.tx((tx) =>
          applyEvents(
            deps,
            tx,
            s,
            items.map((i) => i.e),
          ),
        );
        for (const [k, i] of items.entries())
          results.push({ index: i.index, result: fresh[k] ? 'accepted' : 'duplicate', shipmentReference: s.id });
      }
      return results.sort((a, b) => a.index - b.index);
    },
  };
}

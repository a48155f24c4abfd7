import type { Executor } from '../../platform/db/index.ts';
import type { ShippingLevel } from '../shipping/data.ts';

export interface ShipmentRow {
  id: string;
  seq: number;
  organization_id: string;
  store_id: string;
  shipping_kind: 'dropship' | 'combined';
  level: ShippingLevel;
  address_id: string;
  carrier: string | null;
  tracking_number: string | null;
  tracking_token: string | null;
  shipped_at: Date;
  created_at: Date;
}

export const TRACKING_STATUSES = ['in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned'] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

export interface TrackingEventRow {
  id: string;
  seq: number;
  organization_id: string;
  shipment_id: string;
  carrier_event_id: string;
  status: TrackingStatus;
  occurred_at: Date;
  location: string | null;
  description: string | null;
  created_at: Date;
}

export type NewTrackingEvent = Omit<TrackingEventRow, 'seq'>;

export const shipmentsRepo = {
  async insert(ex: Executor, s: Omit<ShipmentRow, 'seq'>): Promise<void> {
    await ex.query(
      `INSERT INTO shipments (id, organization_id, store_id, shipping_kind, level, address_id, carrier, tracking_number, tracking_token, shipped_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        s.id,
        s.organization_id,
        s.store_id,
        s.shipping_kind,
        s.level,
        s.address_id,
        s.carrier,
        s.tracking_number,
        s.tracking_token,
        s.shipped_at,
        s.created_at,
      ],
    );
  },
  async shipment(ex: Executor, orgId: string, id: string): Promise<ShipmentRow | null> {
    return (
      (await ex.query<ShipmentRow>('SELECT * FROM shipments WHERE organization_id = $1 AND id = $2', [orgId, id]))[0] ??
      null
    );
  },
  async byTrackingToken(ex: Executor, token: string): Promise<ShipmentRow | null> {
    return (await ex.query<ShipmentRow>('SELECT * FROM shipments WHERE tracking_token = $1', [token]))[0] ?? null;
  },
  /** Any organization's shipments (the operator's carrier feed), by reference or tracking number. */
  async shipmentsByKeys(ex: Executor, refs: string[], trackingNumbers: string[]): Promise<ShipmentRow[]> {
    return ex.query<ShipmentRow>(
      'SELECT * FROM shipments WHERE id = ANY($1::text[]) OR tracking_number = ANY($2::text[])',
      [refs, trackingNumbers],
    );
  },
  async lockShipment(ex: Executor, id: string): Promise<void> {
    await ex.query('SELECT 1 FROM shipments WHERE id = $1 FOR UPDATE', [id]);
  },
  /** In the order they happened; events the carrier sent twice are stored once. */
  async trackingEvents(ex: Executor, shipmentId: string): Promise<TrackingEventRow[]> {
    return ex.query<TrackingEventRow>(
      'SELECT * FROM tracking_events WHERE shipment_id = $1 ORDER BY occurred_at, seq',
      [shipmentId],
    );
  },
  /** Inserts the new events; returns the ids of those that were not there yet. */
  async insertTrackingEvents(ex: Executor, events: NewTrackingEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const rows = await ex.query<{ id: string }>(
      `INSERT INTO tracking_events (id, organization_id, shipment_id, carrier_event_id, status, occurred_at, location, description, created_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::text[], $9::timestamptz[])
       ON CONFLICT (shipment_id, carrier_event_id) DO NOTHING RETURNING id`,
      [
        events.map((e) => e.id),
        events.map((e) => e.organization_id),
        events.map((e) => e.shipment_id),
        events.map((e) => e.carrier_event_id),
        events.map((e) => e.status),
        events.map((e) => e.occurred_at),
        events.map((e) => e.location),
        events.map((e) => e.description),
        events.map((e) => e.created_at),
      ],
    );
    return rows.map((r) => r.id);
  },
};

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
  label_state: LabelState;
  carrier_adapter: string;
  carrier_parcel_id: string | null;
  carrier_error: string | null;
  label_blob: string | null;
  label_zpl_blob: string | null;
  customs_blob: string | null;
  delivered_at: Date | null;
  returned_at: Date | null;
  attention: Attention | null;
  attention_since: Date | null;
  tracking_seen_at: Date | null;
}

export type LabelState = 'assigned' | 'pending' | 'announced' | 'refused';
export type Attention = 'returned' | 'exception' | 'lost' | 'refused';

export type NewShipment = Pick<
  ShipmentRow,
  | 'id'
  | 'organization_id'
  | 'store_id'
  | 'shipping_kind'
  | 'level'
  | 'address_id'
  | 'carrier'
  | 'tracking_number'
  | 'tracking_token'
  | 'shipped_at'
  | 'created_at'
  | 'label_state'
  | 'carrier_adapter'
>;

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

export interface CarrierStatusRow {
  id: string;
  shipment_id: string;
  carrier: string;
  code: string;
  message: string | null;
  mapped_status: TrackingStatus | null;
  occurred_at: Date;
  created_at: Date;
}

/** What tracking says about the business, written together under the shipment's lock. */
export type TrackingFacts = Pick<
  ShipmentRow,
  'delivered_at' | 'returned_at' | 'attention' | 'attention_since' | 'tracking_seen_at'
>;

export const shipmentsRepo = {
  /**
   * A store's combined parcel is packed and shipped one decision at a time. Every path that ships
   * or packs combined orders takes it before any order or case row, so that none waits for a row
   * while holding what another holding that row waits for.
   */
  async lockCombined(ex: Executor, storeId: string): Promise<void> {
    await ex.query("SELECT pg_advisory_xact_lock(hashtext('shipments.combined:' || $1))", [storeId]);
  },
  async insert(ex: Executor, s: NewShipment): Promise<void> {
    await ex.query(
      `INSERT INTO shipments (id, organization_id, store_id, shipping_kind, level, address_id, carrier, tracking_number, tracking_token, shipped_at, created_at, label_state, carrier_adapter)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
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
        s.label_state,
        s.carrier_adapter,
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

  async byId(ex: Executor, id: string, lock = false): Promise<ShipmentRow | null> {
    return (
      (await ex.query<ShipmentRow>(`SELECT * FROM shipments WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]))[0] ??
      null
    );
  },
  async byCarrierParcel(ex: Executor, adapter: string, parcelId: string): Promise<ShipmentRow | null> {
    return (
      (
        await ex.query<ShipmentRow>('SELECT * FROM shipments WHERE carrier_adapter = $1 AND carrier_parcel_id = $2', [
          adapter,
          parcelId,
        ])
      )[0] ?? null
    );
  },
  async markAnnounced(
    ex: Executor,
    id: string,
    p: {
      carrier: string;
      trackingNumber: string;
      parcelId: string;
      labelBlob: string;
      zplBlob: string | null;
      customsBlob: string | null;
    },
  ): Promise<void> {
    await ex.query(
      `UPDATE shipments SET label_state = 'announced', carrier = $2, tracking_number = $3, carrier_parcel_id = $4,
         label_blob = $5, label_zpl_blob = $6, customs_blob = $7, carrier_error = NULL,
         attention = CASE WHEN attention = 'refused' THEN NULL ELSE attention END,
         attention_since = CASE WHEN attention = 'refused' THEN NULL ELSE attention_since END
       WHERE id = $1`,
      [id, p.carrier, p.trackingNumber, p.parcelId, p.labelBlob, p.zplBlob, p.customsBlob],
    );
  },
  async markRefused(ex: Executor, id: string, error: string, now: Date): Promise<void> {
    await ex.query(
      `UPDATE shipments SET label_state = 'refused', carrier_error = $2, attention = 'refused', attention_since = $3 WHERE id = $1`,
      [id, error, now],
    );
  },
  async noteCarrierError(ex: Executor, id: string, error: string): Promise<void> {
    await ex.query('UPDATE shipments SET carrier_error = $2 WHERE id = $1', [id, error]);
  },
  async setAddress(ex: Executor, id: string, addressId: string): Promise<void> {
    await ex.query('UPDATE shipments SET address_id = $2 WHERE id = $1', [id, addressId]);
  },
  async markPending(ex: Executor, id: string): Promise<void> {
    await ex.query(
      `UPDATE shipments SET label_state = 'pending', carrier_error = NULL, attention = NULL, attention_since = NULL WHERE id = $1`,
      [id],
    );
  },
  async setTrackingFacts(ex: Executor, id: string, f: TrackingFacts): Promise<void> {
    await ex.query(
      `UPDATE shipments SET delivered_at = $2, returned_at = $3, attention = $4, attention_since = $5, tracking_seen_at = $6 WHERE id = $1`,
      [id, f.delivered_at, f.returned_at, f.attention, f.attention_since, f.tracking_seen_at],
    );
  },
  /** Stores a carrier status once; answers whether it was new. */
  async insertCarrierStatus(ex: Executor, r: CarrierStatusRow): Promise<boolean> {
    const rows = await ex.query(
      `INSERT INTO carrier_statuses (id, shipment_id, carrier, code, message, mapped_status, occurred_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (shipment_id, carrier, code, occurred_at) DO NOTHING RETURNING id`,
      [r.id, r.shipment_id, r.carrier, r.code, r.message, r.mapped_status, r.occurred_at, r.created_at],
    );
    return rows.length > 0;
  },
  async carrierStatuses(ex: Executor, shipmentId: string): Promise<CarrierStatusRow[]> {
    return ex.query<CarrierStatusRow>(
      'SELECT * FROM carrier_statuses WHERE shipment_id = $1 ORDER BY occurred_at, seq',
      [shipmentId],
    );
  },
  /** Announced parcels on their way that the carrier has said nothing about since `before`. */
  async quietParcels(ex: Executor, adapter: string, before: Date, limit: number): Promise<ShipmentRow[]> {
    return ex.query<ShipmentRow>(
      `SELECT * FROM shipments WHERE carrier_adapter = $1 AND label_state = 'announced'
         AND delivered_at IS NULL AND returned_at IS NULL AND COALESCE(tracking_seen_at, created_at) < $2
       ORDER BY COALESCE(tracking_seen_at, created_at) LIMIT $3`,
      [adapter, before, limit],
    );
  },
  /** Tracked parcels on their way with no scan since `before` and nothing flagged yet: lost. */
  async silentParcels(ex: Executor, before: Date, limit: number): Promise<ShipmentRow[]> {
    return ex.query<ShipmentRow>(
      `SELECT s.* FROM shipments s WHERE s.tracking_token IS NOT NULL AND s.delivered_at IS NULL
         AND s.returned_at IS NULL AND s.attention IS NULL AND s.label_state IN ('assigned', 'announced')
         AND s.shipped_at < $1
         AND NOT EXISTS (SELECT 1 FROM tracking_events e WHERE e.shipment_id = s.id AND e.occurred_at >= $1)
       ORDER BY s.shipped_at LIMIT $2`,
      [before, limit],
    );
  },
  async setAttention(ex: Executor, id: string, attention: Attention, since: Date): Promise<void> {
    await ex.query('UPDATE shipments SET attention = $2, attention_since = $3 WHERE id = $1 AND attention IS NULL', [
      id,
      attention,
      since,
    ]);
  },
  /** The console's "needs attention": oldest first. */
  async needingAttention(ex: Executor, limit: number): Promise<ShipmentRow[]> {
    return ex.query<ShipmentRow>(
      'SELECT * FROM shipments WHERE attention IS NOT NULL ORDER BY attention_since, seq LIMIT $1',
      [limit],
    );
  },
};

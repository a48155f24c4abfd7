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
};

import type { Executor } from '../../platform/db/index.ts';

export interface ParcelRow {
  id: string;
  organization_id: string;
  store_id: string;
  opened_at: Date;
  shipment_id: string | null;
  closed_at: Date | null;
}

/** The SQL of combined parcels at the packing table (pack_parcels, migration 0270). */
export const parcelsRepo = {
  /** The open parcel an order is packed into, if any. */
  async openOfOrder(ex: Executor, orderId: string): Promise<ParcelRow | null> {
    const rows = await ex.query<ParcelRow>(
      `SELECT p.* FROM pack_parcels p JOIN pack_parcel_orders po ON po.parcel_id = p.id
        WHERE po.order_id = $1 AND p.closed_at IS NULL`,
      [orderId],
    );
    return rows[0] ?? null;
  },
  async openOfStore(ex: Executor, storeId: string): Promise<ParcelRow | null> {
    const rows = await ex.query<ParcelRow>('SELECT * FROM pack_parcels WHERE store_id = $1 AND closed_at IS NULL', [
      storeId,
    ]);
    return rows[0] ?? null;
  },
  /**
   * Opens the store's parcel with every combined order of the store in production that no open
   * parcel holds, and `orderId` (the scanned case's order).
   */
  async open(ex: Executor, p: { id: string; orgId: string; storeId: string; orderId: string }, at: Date) {
    await ex.query('INSERT INTO pack_parcels (id, organization_id, store_id, opened_at) VALUES ($1, $2, $3, $4)', [
      p.id,
      p.orgId,
      p.storeId,
      at,
    ]);
    await ex.query(
      `INSERT INTO pack_parcel_orders (parcel_id, order_id)
       SELECT $1, o.id FROM orders o
        WHERE o.store_id = $2 AND o.shipping_kind = 'combined' AND o.status = 'in_production'
          AND NOT EXISTS (SELECT 1 FROM pack_parcel_orders po JOIN pack_parcels q ON q.id = po.parcel_id
                           WHERE po.order_id = o.id AND q.closed_at IS NULL)
       UNION SELECT $1, $3
       ON CONFLICT DO NOTHING`,
      [p.id, p.storeId, p.orderId],
    );
  },
  async addOrder(ex: Executor, parcelId: string, orderId: string): Promise<void> {
    await ex.query('INSERT INTO pack_parcel_orders (parcel_id, order_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      parcelId,
      orderId,
    ]);
  },
  /** The parcel's orders still in production (one canceled or shipped on its own drops out), oldest first. */
  async liveOrders(ex: Executor, parcelId: string): Promise<string[]> {
    const rows = await ex.query<{ id: string }>(
      `SELECT o.id FROM pack_parcel_orders po JOIN orders o ON o.id = po.order_id
        WHERE po.parcel_id = $1 AND o.status = 'in_production' ORDER BY o.created_at, o.seq`,
      [parcelId],
    );
    return rows.map((r) => r.id);
  },
  async close(ex: Executor, parcelId: string, shipmentId: string | null, at: Date): Promise<void> {
    await ex.query('UPDATE pack_parcels SET shipment_id = $2, closed_at = $3 WHERE id = $1 AND closed_at IS NULL', [
      parcelId,
      shipmentId,
      at,
    ]);
  },
};

import type { Executor } from '../../platform/db/index.ts';
import type { PrintFileDetails } from './print-file.ts';

export type FileStatus = 'pending' | 'ready' | 'failed';
export type DocumentKind = 'packing_slip' | 'shipping_label';
export const DOCUMENT_KINDS: DocumentKind[] = ['shipping_label', 'packing_slip'];

export interface PrintFileRow {
  order_id: string;
  line_index: number;
  organization_id: string;
  copies: number;
  status: FileStatus;
  blob_key: string | null;
  size: number | null;
  details: PrintFileDetails | Record<string, never>;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ShipmentDocumentRow {
  shipment_id: string;
  kind: DocumentKind;
  organization_id: string;
  status: FileStatus;
  blob_key: string | null;
  size: number | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export const productionRepo = {
  /** Rows for the lines, pending again when they exist (a file made anew). */
  async queuePrintFiles(
    ex: Executor,
    orgId: string,
    orderId: string,
    lines: Array<{ index: number; copies: number }>,
    at: Date,
  ): Promise<void> {
    if (lines.length === 0) return;
    await ex.query(
      `INSERT INTO print_files (order_id, line_index, organization_id, copies, status, created_at, updated_at)
       SELECT $1, l.i, $2, l.c, 'pending', $5, $5 FROM unnest($3::int[], $4::int[]) AS l(i, c)
       ON CONFLICT (order_id, line_index) DO UPDATE SET status = 'pending', copies = EXCLUDED.copies, error = NULL, updated_at = $5`,
      [orderId, orgId, lines.map((l) => l.index), lines.map((l) => l.copies), at],
    );
  },
  async printFiles(ex: Executor, orderIds: string[]): Promise<PrintFileRow[]> {
    if (orderIds.length === 0) return [];
    return ex.query<PrintFileRow>(
      'SELECT * FROM print_files WHERE order_id = ANY($1::text[]) ORDER BY order_id, line_index',
      [orderIds],
    );
  },
  async printFile(ex: Executor, orderId: string, line: number): Promise<PrintFileRow | null> {
    const rows = await ex.query<PrintFileRow>('SELECT * FROM print_files WHERE order_id = $1 AND line_index = $2', [
      orderId,
      line,
    ]);
    return rows[0] ?? null;
  },
  async printFileReady(
    ex: Executor,
    orderId: string,
    line: number,
    f: { blobKey: string; size: number; details: PrintFileDetails },
    at: Date,
  ): Promise<void> {
    await ex.query(
      `UPDATE print_files SET status = 'ready', blob_key = $3, size = $4, details = $5, error = NULL, updated_at = $6
       WHERE order_id = $1 AND line_index = $2`,
      [orderId, line, f.blobKey, f.size, JSON.stringify(f.details), at],
    );
  },
  async printFileFailed(ex: Executor, orderId: string, line: number, error: string, at: Date): Promise<void> {
    await ex.query(
      `UPDATE print_files SET status = 'failed', error = $3, updated_at = $4 WHERE order_id = $1 AND line_index = $2`,
      [orderId, line, error.slice(0, 500), at],
    );
  },

  async queueDocuments(ex: Executor, orgId: string, shipmentId: string, at: Date): Promise<void> {
    await ex.query(
      `INSERT INTO shipment_documents (shipment_id, kind, organization_id, status, created_at, updated_at)
       SELECT $1, k, $2, 'pending', $4, $4 FROM unnest($3::text[]) AS k
       ON CONFLICT (shipment_id, kind) DO UPDATE SET status = 'pending', error = NULL, updated_at = $4`,
      [shipmentId, orgId, DOCUMENT_KINDS, at],
    );
  },
  async documents(ex: Executor, shipmentIds: string[]): Promise<ShipmentDocumentRow[]> {
    if (shipmentIds.length === 0) return [];
    return ex.query<ShipmentDocumentRow>(
      'SELECT * FROM shipment_documents WHERE shipment_id = ANY($1::text[]) ORDER BY shipment_id, kind DESC',
      [shipmentIds],
    );
  },
  async document(ex: Executor, shipmentId: string, kind: DocumentKind): Promise<ShipmentDocumentRow | null> {
    const rows = await ex.query<ShipmentDocumentRow>(
      'SELECT * FROM shipment_documents WHERE shipment_id = $1 AND kind = $2',
      [shipmentId, kind],
    );
    return rows[0] ?? null;
  },
  async documentReady(
    ex: Executor,
    shipmentId: string,
    kind: DocumentKind,
    f: { blobKey: string; size: number },
    at: Date,
  ): Promise<void> {
    await ex.query(
      `UPDATE shipment_documents SET status = 'ready', blob_key = $3, size = $4, error = NULL, updated_at = $5
       WHERE shipment_id = $1 AND kind = $2`,
      [shipmentId, kind, f.blobKey, f.size, at],
    );
  },
  async documentsFailed(ex: Executor, shipmentId: string, error: string, at: Date): Promise<void> {
    await ex.query(
      `UPDATE shipment_documents SET status = 'failed', error = $2, updated_at = $3 WHERE shipment_id = $1 AND status <> 'ready'`,
      [shipmentId, error.slice(0, 500), at],
    );
  },

  /** The fulfilment queue: open orders oldest first, with what the console shows of each. */
  async queue(
    ex: Executor,
    statuses: string[],
    limit: number,
  ): Promise<
    Array<{
      id: string;
      organization_id: string;
      organization_name: string;
      store_code: string;
      order_number: number;
      status: string;
      shipping_kind: string;
      shipping_level: string | null;
      status_modified_at: Date;
      created_at: Date;
    }>
  > {
    // Up to `limit` of each status, so a backlog of new orders never hides what is on the floor.
    return ex.query(
      `SELECT * FROM (
         SELECT o.id, o.organization_id, g.name AS organization_name, s.code AS store_code, o.order_number, o.status,
                o.shipping_kind, o.shipping_level, o.status_modified_at, o.created_at,
                row_number() OVER (PARTITION BY o.status ORDER BY o.status_modified_at, o.seq) AS rn
           FROM orders o JOIN organizations g ON g.id = o.organization_id JOIN stores s ON s.id = o.store_id
          WHERE o.status = ANY($1::text[])) q
        WHERE rn <= $2 ORDER BY status_modified_at, id`,
      [statuses, limit],
    );
  },
  /** Shipments of the last days, newest first, for their labels and slips. */
  async recentShipments(
    ex: Executor,
    since: Date,
    limit: number,
  ): Promise<
    Array<{
      id: string;
      organization_id: string;
      organization_name: string;
      level: string;
      carrier: string | null;
      tracking_number: string | null;
      created_at: Date;
    }>
  > {
    return ex.query(
      `SELECT sh.id, sh.organization_id, g.name AS organization_name, sh.level, sh.carrier, sh.tracking_number, sh.created_at
         FROM shipments sh JOIN organizations g ON g.id = sh.organization_id
        WHERE sh.created_at >= $1 ORDER BY sh.seq DESC LIMIT $2`,
      [since, limit],
    );
  },
  async markProduced(ex: Executor, orgId: string, orderId: string, at: Date): Promise<boolean> {
    const rows = await ex.query(
      `INSERT INTO produced_orders (order_id, organization_id, produced_at) VALUES ($1, $2, $3)
       ON CONFLICT (order_id) DO NOTHING RETURNING order_id`,
      [orderId, orgId, at],
    );
    return rows.length === 1;
  },
  async produced(ex: Executor, orderIds: string[]): Promise<Map<string, Date>> {
    if (orderIds.length === 0) return new Map();
    const rows = await ex.query<{ order_id: string; produced_at: Date }>(
      'SELECT order_id, produced_at FROM produced_orders WHERE order_id = ANY($1::text[])',
      [orderIds],
    );
    return new Map(rows.map((r) => [r.order_id, r.produced_at]));
  },
  async shipmentOrganization(ex: Executor, shipmentId: string): Promise<string | null> {
    const rows = await ex.query<{ organization_id: string }>('SELECT organization_id FROM shipments WHERE id = $1', [
      shipmentId,
    ]);
    return rows[0]?.organization_id ?? null;
  },
};

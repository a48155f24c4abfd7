import type { Executor } from '../../platform/db/index.ts';
import { ApiError, conflict, mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import type { OrderFacts } from '../orders/service.ts';
import type { ShipmentFacts } from '../shipments/service.ts';
import type { ProductionDeps } from './deps.ts';
import { floorRepo } from './floor-repo.ts';
import { floorService } from './floor-service.ts';
import { type HoldRow, holdsRepo } from './holds-repo.ts';
import { productionMaker } from './make.ts';
import { operatorCancelation } from './cancel.ts';
import { productionRelease } from './release.ts';
import { productionStations } from './stations.ts';
import { productionOverview } from './overview.ts';
import {
  DOCUMENT_KINDS,
  type DocumentKind,
  type PrintFileRow,
  type ShipmentDocumentRow,
  productionRepo as repo,
} from './repo.ts';

export const PRINT_FILES_JOB = 'production.print_files';
export const DOCUMENTS_JOB = 'production.shipment_documents';

export type ProductionService = ReturnType<typeof productionService>;

/** Path segments of the documents: `shipping-label`, `packing-slip`. */
export const documentSlug = (k: DocumentKind) => k.replace('_', '-');
export const documentOfSlug = (slug: string): DocumentKind | null =>
  DOCUMENT_KINDS.find((k) => documentSlug(k) === slug) ?? null;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function printFileView(f: PrintFileRow) {
  return {
    orderlineIndex: f.line_index,
    copies: f.copies,
    status: f.status,
    size: f.size,
    ...('widthPx' in f.details ? { print: f.details } : {}),
    error: f.error,
    created: iso(f.created_at),
    modified: iso(f.updated_at),
  };
}

/** Why an order waits for production (null: it is not held). */
export function holdView(h: HoldRow | undefined) {
  return h ? { reason: h.reason, message: h.message, since: h.since.toISOString() } : null;
}

export function documentView(d: ShipmentDocumentRow) {
  return {
    kind: d.kind,
    status: d.status,
    size: d.size,
    error: d.error,
    created: iso(d.created_at),
    modified: iso(d.updated_at),
  };
}

/**
 * Print files per order line and labels and packing slips per shipment: queued in the transaction
 * that starts production or ships, made by jobs, downloaded by operators.
 */
export function productionService(deps: ProductionDeps) {
  const { db, clock, blobs } = deps;

  async function orderOf(ref: string): Promise<OrderFacts> {
    const [o] = isReference('Order', ref) ? await deps.orders.ordersByIds(db, null, [ref]) : [];
    return mustFind(o, 'Order', ref);
  }
  async function shipmentOf(ref: string): Promise<ShipmentFacts> {
    const orgId = isReference('Shipment', ref) ? await repo.shipmentOrganization(db, ref) : null;
    return mustFind(orgId ? await deps.shipments.shipment(db, orgId, ref) : null, 'Shipment', ref);
  }
  async function queuePrintFiles(tx: Executor, o: OrderFacts): Promise<number> {
    // Lines with artwork are printed; blanks and accessories come off the shelf.
    const lines = (await deps.orders.orderlines(tx, o.id)).filter(
      (l) => l.imageId !== null && l.quantity > l.canceledQuantity,
    );
    if (lines.length === 0) return 0;
    const copies = lines.map((l) => ({ index: l.index, copies: l.quantity - l.canceledQuantity }));
    await repo.queuePrintFiles(tx, o.organizationId, o.id, copies, clock.now());
    // Each copy is a unit on the floor, awaiting a batch (made once: a remade file keeps its units).
    await floorRepo.createUnits(
      tx,
      { orderId: o.id, organizationId: o.organizationId, orderCreatedAt: o.createdAt },
      copies,
      clock.now(),
    );
    await queueJob(tx, PRINT_FILES_JOB, o.organizationId, { orderId: o.id });
    return lines.length;
  }
  async function queueDocuments(tx: Executor, s: ShipmentFacts): Promise<void> {
    await repo.queueDocuments(tx, s.organizationId, s.id, clock.now());
    await queueJob(tx, DOCUMENTS_JOB, s.organizationId, { shipmentId: s.id });
  }
  /** A document job, owned by the organization whose order or shipment the payload names. */
  function queueJob(tx: Executor, kind: string, organizationId: string, payload: Record<string, string>) {
    return enqueue(tx, clock, kind, { organizationId, ...payload }, { maxAttempts: 5, organizationId });
  }
  async function pdf(row: { status: string; blob_key: string | null; error: string | null } | null, what: string) {
    const found = mustFind(row, what);
    if (found.status !== 'ready' || !found.blob_key)
      throw conflict(
        'production_file_not_ready',
        `The ${what.toLowerCase()} is ${found.status}${found.error ? `: ${found.error}` : '; try again in a moment'}`,
      );
    const bytes = await blobs.get(found.blob_key);
    if (!bytes) throw new Error(`blob ${found.blob_key} is missing`);
    return bytes;
  }

  const release = productionRelease(deps);
  const floor = floorService(deps);

  return {
    /** The jobs' work (jobs.ts). */
    make: productionMaker(deps, floor.config.bleedMm),
    /** The release to production (PRODUCTION_RELEASE) and its holds. */
    release,
    /** The floor at a glance: orders by stage, late orders, throughput, remakes by reason. */
    overview: productionOverview(deps),
    /** The QC and pack stations, picking problems and the remakes they queue. */
    stations: productionStations({
      ...deps,
      ship: (orderIds: string[]) => deps.shipments.ship(null, { orderReferences: orderIds }, 'scan'),
    }),
    /** Units, batches in the printers' jigs, the print station. */
    floor,
    /** Operator: cancel lines or the whole order, in production too, with a reason. */
    cancel: operatorCancelation(deps),
    /**
     * Something that held orders may have cleared (a prepaid top-up, goods received): call it in the
     * transaction of that change; the held orders are looked at again once it commits.
     */
    reevaluateHolds: release.reevaluateHolds,
    /** Subscribed to the orders module: the order's print files are queued with its production start. */
    productionStarted: async (tx: Executor, o: OrderFacts) => {
      await holdsRepo.clear(tx, o.id);
      await queuePrintFiles(tx, o);
    },
    /** Subscribed to the shipments module: the label and the slip are queued with the shipment. */
    shipped: queueDocuments,

    async orderPrintFiles(orderRef: string) {
      const o = await orderOf(orderRef);
      const [files, produced] = await Promise.all([repo.printFiles(db, [o.id]), repo.produced(db, [o.id])]);
      return {
        orderReference: o.id,
        organizationReference: o.organizationId,
        status: o.status,
        produced: iso(produced.get(o.id) ?? null),
        printFiles: files.map(printFileView),
      };
    },
    async printFilePdf(orderRef: string, index: number) {
      const o = await orderOf(orderRef);
      const bytes = await pdf(await repo.printFile(db, o.id, index), 'Print file');
      return { bytes, filename: `${o.id}-line-${index}.pdf` };
    },
    /** Makes the order's print files anew (after a catalog fix, or for an order from before them). */
    async remakePrintFiles(orderRef: string) {
      const o = await orderOf(orderRef);
      if (o.status !== 'in_production' && o.status !== 'shipped')
        throw conflict('production_not_started', `Order ${o.id} is ${o.status}; print files are made in production`);
      await db.tx((tx) => queuePrintFiles(tx, o));
      return this.orderPrintFiles(o.id);
    },
    /** The factory floor is done with the order: it moves to "ready to ship" in the queue. */
    async markProduced(orderRef: string) {
      const o = await orderOf(orderRef);
      if (o.status !== 'in_production')
        throw new ApiError('production_not_started', `Order ${o.id} is ${o.status}, not in production`);
      await repo.markProduced(db, o.organizationId, o.id, clock.now());
    },

    async shipmentDocuments(shipmentRef: string) {
      const s = await shipmentOf(shipmentRef);
      return {
        shipmentReference: s.id,
        organizationReference: s.organizationId,
        documents: (await repo.documents(db, [s.id])).map(documentView),
      };
    },
    async documentPdf(shipmentRef: string, slug: string) {
      const s = await shipmentOf(shipmentRef);
      const kind = documentOfSlug(slug);
      const what = kind === 'packing_slip' ? 'Packing slip' : 'Shipping label';
      const bytes = await pdf(kind ? await repo.document(db, s.id, kind) : null, what);
      return { bytes, filename: `${s.id}-${slug}.pdf` };
    },
    async remakeDocuments(shipmentRef: string) {
      const s = await shipmentOf(shipmentRef);
      await db.tx((tx) => queueDocuments(tx, s));
      return this.shipmentDocuments(s.id);
    },

    /**
     * The fulfilment queue: orders waiting for production, in production and produced (ready to
     * ship), oldest change first, each with its print files; and the last week's shipments with
     * their labels and slips.
     */
    async queue(limit = 200) {
      const open = await repo.queue(db, ['pending', 'preorder', 'in_production'], limit);
      const ids = open.map((o) => o.id);
      const [files, produced, holds] = await Promise.all([
        repo.printFiles(db, ids),
        repo.produced(db, ids),
        holdsRepo.holds(db, ids),
      ]);
      const item = (o: (typeof open)[number]) => ({
        reference: o.id,
        organizationReference: o.organization_id,
        organizationName: o.organization_name,
        legacyOrderCode: `${o.store_code}-${o.order_number}`,
        status: o.status,
        shippingKind: o.shipping_kind,
        shippingLevel: o.shipping_level,
        since: o.status_modified_at.toISOString(),
        produced: iso(produced.get(o.id) ?? null),
        printFiles: files.filter((f) => f.order_id === o.id).map(printFileView),
        hold: holdView(holds.find((h) => h.order_id === o.id)),
      });
      const shipments = await repo.recentShipments(db, new Date(clock.now().getTime() - 7 * 86400_000), limit);
      const docs = await repo.documents(
        db,
        shipments.map((s) => s.id),
      );
      return {
        release: release.describe(),
        waiting: open.filter((o) => o.status !== 'in_production').map(item),
        inProduction: open.filter((o) => o.status === 'in_production' && !produced.has(o.id)).map(item),
        readyToShip: open.filter((o) => o.status === 'in_production' && produced.has(o.id)).map(item),
        shipped: shipments.map((s) => ({
          reference: s.id,
          organizationReference: s.organization_id,
          organizationName: s.organization_name,
          level: s.level,
          carrier: s.carrier,
          trackingNumber: s.tracking_number,
          created: s.created_at.toISOString(),
          documents: docs.filter((d) => d.shipment_id === s.id).map(documentView),
        })),
      };
    },
  };
}

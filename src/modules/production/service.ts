import type { Executor } from '../../platform/db/index.ts';
import type { OrderFacts } from '../orders/service.ts';
import { operatorCancelation } from './cancel.ts';
import type { ProductionDeps } from './deps.ts';
import { fileQueue } from './file-queue.ts';
import { floorService } from './floor-service.ts';
import { fulfilmentQueue } from './fulfilment-queue.ts';
import { holdsRepo } from './holds-repo.ts';
import { productionMaker } from './make.ts';
import { orderFiles } from './order-files.ts';
import { productionOverview } from './overview.ts';
import { productionRelease } from './release.ts';
import { shipmentDocuments } from './shipment-documents.ts';
import { productionStations } from './stations.ts';

export type ProductionService = ReturnType<typeof productionService>;

/**
 * Print files per order line and labels and packing slips per shipment: queued in the transaction
 * that starts production or ships, made by jobs, downloaded by operators.
 */
export function productionService(deps: ProductionDeps) {
  const release = productionRelease(deps);
  const floor = floorService(deps);
  const queue = fileQueue(deps);

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
      ship: (tx: Executor, orderIds: string[]) => deps.shipments.ship(null, { orderReferences: orderIds }, 'scan', tx),
      lockCombined: deps.shipments.lockCombined,
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
      await queue.printFiles(tx, o);
    },
    /** Subscribed to the shipments module: the label and the slip are queued with the shipment. */
    shipped: queue.documents,
    /** Print files of an order: listed, downloaded, remade; the order marked produced. */
    ...orderFiles(deps, queue),
    /** Labels and packing slips of a shipment: listed, downloaded, remade. */
    ...shipmentDocuments(deps, queue),
    /** The fulfilment queue, waiting to shipped. */
    queue: fulfilmentQueue(deps, release),
  };
}

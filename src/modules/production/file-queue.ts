import type { Executor } from '../../platform/db/index.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import type { OrderFacts } from '../orders/service.ts';
import type { ShipmentFacts } from '../shipments/service.ts';
import type { ProductionDeps } from './deps.ts';
import { floorRepo } from './floor-repo.ts';
import { productionRepo as repo } from './repo.ts';

export const PRINT_FILES_JOB = 'production.print_files';
export const DOCUMENTS_JOB = 'production.shipment_documents';

export type FileQueue = ReturnType<typeof fileQueue>;

/**
 * Queues the files production makes, in the caller's transaction: an order's print files (and its
 * units on the floor) when it starts production, a shipment's label and slip when it ships.
 */
export function fileQueue(deps: Pick<ProductionDeps, 'clock' | 'orders'>) {
  const { clock } = deps;

  /** A document job, owned by the organization whose order or shipment the payload names. */
  function queueJob(tx: Executor, kind: string, organizationId: string, payload: Record<string, string>) {
    return enqueue(tx, clock, kind, { organizationId, ...payload }, { maxAttempts: 5, organizationId });
  }

  return {
    async printFiles(tx: Executor, o: OrderFacts): Promise<number> {
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
    },
    async documents(tx: Executor, s: ShipmentFacts): Promise<void> {
      await repo.queueDocuments(tx, s.organizationId, s.id, clock.now());
      await queueJob(tx, DOCUMENTS_JOB, s.organizationId, { shipmentId: s.id });
    },
  };
}

import { ApiError, conflict, mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { OrderFacts } from '../orders/service.ts';
import type { ProductionDeps } from './deps.ts';
import type { FileQueue } from './file-queue.ts';
import { readyPdf } from './ready-pdf.ts';
import { productionRepo as repo } from './repo.ts';
import { iso, printFileView } from './views.ts';

/** An order's print files for the operators: listed, downloaded, made anew; and the order marked produced. */
export function orderFiles(deps: Pick<ProductionDeps, 'db' | 'clock' | 'blobs' | 'orders'>, queue: FileQueue) {
  const { db, clock, blobs } = deps;

  async function orderOf(ref: string): Promise<OrderFacts> {
    const [o] = isReference('Order', ref) ? await deps.orders.ordersByIds(db, null, [ref]) : [];
    return mustFind(o, 'Order', ref);
  }

  async function orderPrintFiles(orderRef: string) {
    const o = await orderOf(orderRef);
    const [files, produced] = await Promise.all([repo.printFiles(db, [o.id]), repo.produced(db, [o.id])]);
    return {
      orderReference: o.id,
      organizationReference: o.organizationId,
      status: o.status,
      produced: iso(produced.get(o.id) ?? null),
      printFiles: files.map(printFileView),
    };
  }

  return {
    orderPrintFiles,
    async printFilePdf(orderRef: string, index: number) {
      const o = await orderOf(orderRef);
      const bytes = await readyPdf(blobs, await repo.printFile(db, o.id, index), 'Print file');
      return { bytes, filename: `${o.id}-line-${index}.pdf` };
    },
    /** Makes the order's print files anew (after a catalog correction, or for an order in production without them). */
    async remakePrintFiles(orderRef: string) {
      const o = await orderOf(orderRef);
      if (o.status !== 'in_production' && o.status !== 'shipped')
        throw conflict('production_not_started', `Order ${o.id} is ${o.status}; print files are made in production`);
      await db.tx((tx) => queue.printFiles(tx, o));
      return orderPrintFiles(o.id);
    },
    /** The factory floor is done with the order: it moves to "ready to ship" in the queue. */
    async markProduced(orderRef: string) {
      const o = await orderOf(orderRef);
      if (o.status !== 'in_production')
        throw new ApiError('production_not_started', `Order ${o.id} is ${o.status}, not in production`);
      await repo.markProduced(db, o.organizationId, o.id, clock.now());
    },
  };
}

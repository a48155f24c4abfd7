import type { Worker } from '../../platform/jobs/worker.ts';
import { PRODUCT_CHANGED_JOB, type ProductChange } from './events.ts';
import type { CatalogService } from './service.ts';

/** Tells the listeners other modules registered (orders, webhooks) about a committed product change. */
export function registerCatalogJobs(s: { worker: Worker; catalog: CatalogService }): void {
  s.worker.register(PRODUCT_CHANGED_JOB, { run: (payload: ProductChange) => s.catalog.dispatchProductChange(payload) });
}

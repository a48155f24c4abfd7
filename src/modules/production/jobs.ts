import type { JobRow } from '../../platform/jobs/queue.ts';
import type { Worker } from '../../platform/jobs/worker.ts';
import { DOCUMENTS_JOB, PRINT_FILES_JOB, type ProductionService } from './service.ts';

const lastAttempt = (job: JobRow) => job.max_attempts !== null && job.attempts >= job.max_attempts;

/**
 * Print files are image work (the render pool); labels and slips are small. A job whose last attempt
 * fails marks its files failed, so the queue shows the error instead of "pending" for ever.
 */
export function registerProductionJobs(s: { worker: Worker; production: Pick<ProductionService, 'make'> }): void {
  const { make } = s.production;
  s.worker.register(PRINT_FILES_JOB, {
    pool: 'renders',
    async run(payload: { organizationId: string; orderId: string }, job) {
      try {
        await make.printFiles(payload.organizationId, payload.orderId);
      } catch (err) {
        if (lastAttempt(job)) await make.printFilesFailed(payload.orderId, String((err as Error).message ?? err));
        throw err;
      }
    },
  });
  s.worker.register(DOCUMENTS_JOB, {
    async run(payload: { organizationId: string; shipmentId: string }, job) {
      try {
        await make.documents(payload.organizationId, payload.shipmentId);
      } catch (err) {
        if (lastAttempt(job)) await make.documentsFailed(payload.shipmentId, String((err as Error).message ?? err));
        throw err;
      }
    },
  });
}

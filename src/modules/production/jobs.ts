import type { JobRow } from '../../platform/jobs/queue.ts';
import type { Worker } from '../../platform/jobs/worker.ts';
import { BATCH_FILES_JOB, BATCHING_JOB } from './floor-service.ts';
import { CUTOFF_JOB, RECHECK_JOB, RELEASE_JOB } from './release.ts';
import { DOCUMENTS_JOB, PRINT_FILES_JOB } from './file-queue.ts';
import type { ProductionService } from './service.ts';

const lastAttempt = (job: JobRow) => job.max_attempts !== null && job.attempts >= job.max_attempts;

/**
 * Print files are image work (the render pool); labels and slips are small. A job whose last attempt
 * fails marks its files failed, so the queue shows the error instead of "pending" for ever.
 */
export function registerProductionJobs(s: {
  worker: Worker;
  production: Pick<ProductionService, 'make' | 'release' | 'stations' | 'floor'>;
}): void {
  const { make, release, stations } = s.production;
  // The release: every minute, at each cut-off, and when another module says a hold may have cleared.
  // Remakes held for want of a blank take one as soon as it is on the shelf.
  s.worker.register(RELEASE_JOB, {
    run: () => release.minute().then(() => stations.retryHeld().then(() => undefined)),
  });
  s.worker.register(CUTOFF_JOB, {
    run: (payload: { cutoff: string }) => release.cutoff(new Date(payload.cutoff)).then(() => undefined),
  });
  s.worker.register(BATCH_FILES_JOB, {
    pool: 'renders',
    async run(payload: { batchId: string }, job) {
      try {
        await s.production.floor.make.make(payload.batchId);
      } catch (err) {
        if (lastAttempt(job))
          await s.production.floor.make.failed(payload.batchId, String((err as Error).message ?? err));
        throw err;
      }
    },
  });
  s.worker.register(BATCHING_JOB, { run: () => s.production.floor.scheduled().then(() => undefined) });
  s.worker.register(RECHECK_JOB, {
    run: () => release.recheck().then(() => stations.retryHeld().then(() => undefined)),
  });
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

import type { Worker } from '../../platform/jobs/worker.ts';
import { INBOX_JOB } from './inbound.ts';
import { OPERATION_JOB, REDACT_JOB } from './operations.ts';
import type { StorefrontsService } from './service.ts';

/** Inbound webhooks are processed in the maintenance pool, calls to shops in the deliveries pool. */
export function registerStorefrontJobs(s: { worker: Worker; storefronts: StorefrontsService }): void {
  s.worker.register(INBOX_JOB, { run: (p: { inboxId: string }, job) => s.storefronts.processInbox(p.inboxId, job) });
  s.worker.register(OPERATION_JOB, {
    pool: 'deliveries',
    leaseMs: 120_000,
    run: (p: { operationId: string }) => s.storefronts.runOperation(p.operationId),
  });
  s.worker.register(REDACT_JOB, { run: (p: { inboxId: string }) => s.storefronts.redactAgain(p.inboxId) });
}

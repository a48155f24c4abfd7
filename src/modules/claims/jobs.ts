import type { Worker } from '../../platform/jobs/worker.ts';
import { EXPIRE_JOB, PURGE_JOB } from './evidence.ts';
import type { ClaimsService } from './service.ts';

/** Evidence retention: each upload and each closed claim schedules its own deletion job. */
export function registerClaimsJobs(s: { worker: Worker; claims: Pick<ClaimsService, 'evidence'> }): void {
  s.worker.register(EXPIRE_JOB, {
    async run(payload: { evidenceId: string }) {
      await s.claims.evidence.expireUnused(payload.evidenceId);
    },
  });
  s.worker.register(PURGE_JOB, {
    async run(payload: { claimId: string }) {
      await s.claims.evidence.purgeClaim(payload.claimId);
    },
  });
}

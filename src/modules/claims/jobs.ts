import type { Services } from '../../services.ts';
import { EXPIRE_JOB, PURGE_JOB } from './evidence.ts';

/** Evidence retention: each upload and each closed claim schedules its own deletion job. */
export function registerClaimsJobs(s: Pick<Services, 'worker' | 'claims'>): void {
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

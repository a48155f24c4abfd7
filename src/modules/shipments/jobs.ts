import type { Worker } from '../../platform/jobs/worker.ts';
import { ANNOUNCE_JOB } from './announce.ts';
import type { ShipmentsService } from './service.ts';

const MAX_ATTEMPTS = 12;

/** Carrier announcements: retried while the carrier cannot be reached (5 s doubling, at most 1 h apart). */
export function registerShipmentJobs(s: { worker: Worker; shipments: Pick<ShipmentsService, 'announce'> }): void {
  s.worker.register(ANNOUNCE_JOB, {
    pool: 'deliveries',
    async run(payload: { shipmentId: string }, job) {
      await s.shipments.announce.run(payload.shipmentId, job.attempts, job.attempts >= MAX_ATTEMPTS);
    },
  });
}

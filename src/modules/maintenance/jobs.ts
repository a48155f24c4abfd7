import { purgeExpiredIdempotencyKeys } from '../../platform/http/idempotency.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { jobsRepo } from '../../platform/jobs/queue.ts';
import { EVENT_RETENTION_MS } from '../webhooks/events.ts';
import type { MaintenanceDeps } from './deps.ts';
import { maintenanceRepo } from './repo.ts';

const HOUR = 3600_000;

/** Periodic clean-ups, as jobs that re-enqueue themselves: one chain per deployment via dedupe keys. */
export function registerMaintenanceJobs(s: MaintenanceDeps): void {
  s.worker.register('maintenance.hourly', {
    async run() {
      const now = s.clock.now();
      // First, the next hour: a step below that fails retries this job (each is safe to repeat) and
      // may end it dead after its attempts, but never stops the chain. The slot's dedupe key makes a
      // retry book the same hour again, not a second one.
      await scheduleMaintenance(s, new Date(now.getTime() + HOUR));
      await purgeExpiredIdempotencyKeys(s.db, now);
      await s.webhooks.purgeExpiredEvents(now);
      // Store callback attempts are kept as long as webhook deliveries: one timeline, one horizon.
      await s.orders.purgeCallbackAttempts(new Date(now.getTime() - EVENT_RETENTION_MS));
      await s.requestLog.purgeBefore(new Date(now.getTime() - s.config.requestLogRetentionDays * 24 * HOUR));
      await jobsRepo.purgeSucceeded(s.db, new Date(now.getTime() - 7 * 24 * HOUR));
      await s.billing.issueMonthlyInvoices();
      await s.shipments.checkTracking();
      if (s.db.kind === 'pglite') await maintenanceRepo.vacuumEmbedded(s.db);
    },
  });
}

export async function scheduleMaintenance(s: Pick<MaintenanceDeps, 'db' | 'clock'>, at = s.clock.now()): Promise<void> {
  const slot = new Date(Math.floor(at.getTime() / HOUR) * HOUR).toISOString();
  await enqueue(
    s.db,
    s.clock,
    'maintenance.hourly',
    {},
    { runAt: at, dedupeKey: `maintenance.hourly:${slot}`, maxAttempts: 3, organizationId: null },
  );
}

import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Worker } from '../../platform/jobs/worker.ts';
import type { DeliveryAttempts } from './delivery.ts';
import { DELIVER_JOB, PURGE_JOB, purgeExpiredEvents } from './events.ts';

/**
 * One job per delivery attempt, so deliveries to many endpoints run side by side and a slow one
 * holds up only its own job. The retry schedule is the module's (WEBHOOK_RETRY_SCHEDULE), not the
 * worker's back-off: the worker only retries a job that failed on the database itself.
 */
export function registerWebhookJobs(s: {
  worker: Worker;
  db: Db;
  clock: Clock;
  config: Pick<Config, 'callbackTimeoutMs'>;
  webhookAttempts: DeliveryAttempts;
}): void {
  s.worker.register(DELIVER_JOB, {
    pool: 'deliveries',
    leaseMs: s.config.callbackTimeoutMs + 30_000,
    run: (payload: { deliveryId: string; attempt: number }) =>
      s.webhookAttempts.attempt(payload.deliveryId, payload.attempt),
  });
  s.worker.register(PURGE_JOB, {
    async run() {
      await purgeExpiredEvents(s.db, s.clock.now());
    },
  });
}

import { type Clock, realNow } from '../clock.ts';
import type { Executor } from '../db/index.ts';
import { type JobRow, jobsRepo } from './queue.ts';
import { DEFAULT_LEASE_MS, PermanentJobError, defaultBackoff } from './worker.ts';

/**
 * Jobs a running job takes along: a handler that does the work of many jobs at once (a batch of
 * stored webhooks written together) claims their due, pending jobs under its own worker and a lease,
 * then settles each with its own outcome. A job running elsewhere or waiting out a backoff is not
 * taken; a crash leaves the taken ones running until their lease ends, and workers then run them
 * again like any other.
 */
export function jobsAlong(db: Executor, clock: Clock) {
  return {
    /** The jobs of `kind` under `dedupeKeys` that were pending and due, now running as `holder`'s. */
    async claim(holder: JobRow, kind: string, dedupeKeys: string[], leaseMs = DEFAULT_LEASE_MS): Promise<JobRow[]> {
      if (!holder.locked_by || dedupeKeys.length === 0) return [];
      return jobsRepo.claimByKeys(db, holder.locked_by, kind, dedupeKeys, realNow(clock), leaseMs);
    },
    /**
     * Each job taken along: done (`error` null), or failed like a job the worker ran (retried after
     * the default backoff, dead once out of attempts).
     */
    async settle(holder: JobRow, outcomes: Array<{ job: JobRow; error: unknown }>): Promise<void> {
      const now = realNow(clock);
      const worker = holder.locked_by!;
      const done = outcomes.filter((o) => o.error === null).map((o) => o.job.id);
      if (done.length) await jobsRepo.succeedMany(db, done, worker, now);
      for (const { job, error } of outcomes) {
        if (error === null) continue;
        const exhausted =
          error instanceof PermanentJobError || (job.max_attempts !== null && job.attempts >= job.max_attempts);
        const retryAt = exhausted ? null : new Date(now.getTime() + defaultBackoff(job.attempts));
        const message = error instanceof Error ? error.message : String(error);
        await jobsRepo.fail(db, job.id, worker, now, message, retryAt);
      }
    },
  };
}

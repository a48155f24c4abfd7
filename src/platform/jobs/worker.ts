import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/index.ts';
import { randomId } from '../ids.ts';
import { type JobRow, jobsRepo } from './queue.ts';

export interface JobHandler {
  run(payload: any, job: JobRow): Promise<void>;
  /** Delay before attempt n+1 after n failed attempts (default: exponential from 5 s, capped at 1 h). */
  backoffMs?(attempts: number): number;
  /** How long one attempt may hold the job before another worker takes it over. */
  leaseMs?: number;
}

/** A failure that will not get better by retrying: the job goes straight to `dead`. */
export class PermanentJobError extends Error {}

export const defaultBackoff = (attempts: number) => Math.min(3600_000, 5000 * 2 ** (attempts - 1));

/**
 * Polls the jobs table and runs due jobs. Any number of workers (in the server or in separate
 * processes) share the table; `SKIP LOCKED` plus leases mean one job runs on one worker at a time.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomId(6)}`;
  private handlers = new Map<string, JobHandler>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: { db: Db; clock: Clock; log: FastifyBaseLogger },
    private readonly opts: { pollMs?: number; concurrency?: number } = {},
  ) {}

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  get kinds(): string[] {
    return [...this.handlers.keys()];
  }

  /** Claims and runs what is due now; returns how many jobs ran. Tests call this directly. */
  async runDue(limit = this.opts.concurrency ?? 4): Promise<number> {
    const kinds = this.kinds;
    if (kinds.length === 0) return 0;
    const leaseMs = Math.max(...[...this.handlers.values()].map((h) => h.leaseMs ?? 60_000));
    const jobs = await jobsRepo.claim(this.deps.db, this.id, kinds, this.deps.clock.now(), leaseMs, limit);
    await Promise.all(jobs.map((job) => this.execute(job)));
    return jobs.length;
  }

  /** Runs due jobs until none is left (tests). */
  async drain(maxRounds = 100): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxRounds; i++) {
      const n = await this.runDue();
      if (n === 0) break;
      total += n;
    }
    return total;
  }

  private async execute(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.kind);
    const { db, clock, log } = this.deps;
    if (!handler) return;
    try {
      await handler.run(job.payload, job);
      await jobsRepo.succeed(db, job.id, this.id, clock.now());
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const exhausted =
        err instanceof PermanentJobError || (job.max_attempts !== null && job.attempts >= job.max_attempts);
      const retryAt = exhausted
        ? null
        : new Date(clock.now().getTime() + (handler.backoffMs ?? defaultBackoff)(job.attempts));
      log.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts, err: message, dead: exhausted }, 'job failed');
      await jobsRepo
        .fail(db, job.id, this.id, clock.now(), message, retryAt)
        .catch((e) => log.error({ err: e }, 'could not record job failure'));
    }
  }

  /** Wakes the poller early (an in-process enqueue). */
  nudge(): void {
    this.wake?.();
  }

  /**
   * Polls in the background with up to `concurrency` jobs in flight: a free slot is refilled at
   * once, so one slow job (a hanging webhook receiver) never holds up the others.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    const pollMs = this.opts.pollMs ?? 500;
    const concurrency = this.opts.concurrency ?? 4;
    const kinds = () => this.kinds;
    this.loop = (async () => {
      while (this.running) {
        let claimed = 0;
        const free = concurrency - this.inFlight.size;
        if (free > 0 && kinds().length > 0) {
          try {
            const leaseMs = Math.max(...[...this.handlers.values()].map((h) => h.leaseMs ?? 60_000));
            const jobs = await jobsRepo.claim(this.deps.db, this.id, kinds(), this.deps.clock.now(), leaseMs, free);
            claimed = jobs.length;
            for (const job of jobs) {
              const p = this.execute(job).finally(() => {
                this.inFlight.delete(p);
                this.wake?.();
              });
              this.inFlight.add(p);
            }
          } catch (err) {
            this.deps.log.error({ err }, 'worker poll failed');
          }
        }
        if (claimed > 0 && this.inFlight.size < concurrency) continue;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, pollMs);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.wake = null;
      }
    })();
  }

  /** Stops polling and waits for the jobs in hand; a job cut off later is re-run via its lease. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.all(this.inFlight);
  }
}

import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, realNow } from '../clock.ts';
import { runInScope } from '../context.ts';
import type { Db, Executor } from '../db/index.ts';
import { randomId } from '../ids.ts';
import { type JobRow, jobsRepo } from './queue.ts';

/** Renders, outbound deliveries (webhooks, callbacks) and the rest each have slots of their own. */
export type JobPool = 'renders' | 'deliveries' | 'maintenance';

/** What a running job may do with its own row. */
export interface JobAttempt {
  /**
   * Marks the job succeeded in the handler's transaction, so that its completion commits with the
   * work it records and takes no statement of its own. A crash before that commit leaves the job
   * running under its lease, and it runs again.
   */
  succeedIn(tx: Executor): Promise<void>;
}

export interface JobHandler {
  run(payload: any, job: JobRow, attempt: JobAttempt): Promise<void>;
  /** The pool whose slots the job runs in (default: maintenance). */
  pool?: JobPool;
  /** Delay before attempt n+1 after n failed attempts (default: exponential from 5 s, capped at 1 h). */
  backoffMs?(attempts: number): number;
  /**
   * How long a worker that stopped answering (killed, cut off from the database) holds the job
   * before another takes it over. A running attempt renews it every third of it, so a slow job
   * keeps its claim however long it runs.
   */
  leaseMs?: number;
}

/** A failure that will not get better by retrying: the job goes straight to `dead`. */
export class PermanentJobError extends Error {}

/** A silent worker's jobs are taken over after this; a live one renews it while the job runs. */
export const DEFAULT_LEASE_MS = 60_000;

/** The fewest render slots a polling worker runs (see `start`). */
export const MIN_RENDER_SLOTS = 2;

export const defaultBackoff = (attempts: number) => Math.min(3600_000, 5000 * 2 ** (attempts - 1));

/**
 * Where the database announces new jobs, on commit: the kinds the statement inserted, comma
 * separated (trigger `jobs_added`, migration 0291).
 */
export const JOBS_CHANNEL = 'pod_jobs';

/** An idle pool's first wait between claims (`pollMs`); each empty wait doubles it up to `idleMaxMs`. */
export const IDLE_POLL_MS = { first: 500, max: 4000 };

/**
 * Polls the jobs table and runs due jobs. Any number of workers (in the server or in separate
 * processes) share the table; `SKIP LOCKED` plus leases mean one job runs on one worker at a time.
 * A new job wakes the pool that runs it on every worker (`JOBS_CHANNEL`), so an idle pool polls
 * seldom: only for what no insert announces (a retry's or a delayed job's due time, a dead
 * worker's lease running out).
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomId(6)}`;
  private handlers = new Map<string, JobHandler>();
  private running = false;
  private loops: Array<Promise<void>> = [];
  /** The waiting pollers' wake-ups, with the pool of each. */
  private wakers = new Map<() => void, JobPool>();
  private inFlight = new Set<Promise<void>>();
  /** Nudges so far, by pool: a nudge that arrives while a pool is claiming (not waiting) is not lost. */
  private nudges: Record<JobPool, number> = { renders: 0, deliveries: 0, maintenance: 0 };
  private listening = false;

  constructor(
    private readonly deps: { db: Db; clock: Clock; log: FastifyBaseLogger },
    private readonly opts: {
      /** An idle pool's first wait between claims (default `IDLE_POLL_MS.first`). */
      pollMs?: number;
      /** An idle pool's longest wait between claims (default `IDLE_POLL_MS.max`). */
      idleMaxMs?: number;
      /** Starts a pool's wait; returns its cancel (default: setTimeout; tests move time by hand). */
      idleTimer?: (fire: () => void, ms: number) => () => void;
      concurrency?: number;
      pools?: Partial<Record<JobPool, number>>;
    } = {},
  ) {}

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  get kinds(): string[] {
    return [...this.handlers.keys()];
  }

  private kindsOf(pool: JobPool): string[] {
    return [...this.handlers].filter(([, h]) => (h.pool ?? 'maintenance') === pool).map(([k]) => k);
  }

  private poolOf(kind: string): JobPool {
    return this.handlers.get(kind)?.pool ?? 'maintenance';
  }

  private leaseOf(kind: string): number {
    return this.handlers.get(kind)?.leaseMs ?? DEFAULT_LEASE_MS;
  }

  private leasesOf(kinds: string[]): number[] {
    return kinds.map((k) => this.leaseOf(k));
  }

  /** Renews the job's lease while its handler runs; the returned function stops it. */
  private holdLease(job: JobRow): () => void {
    const { db, clock, log } = this.deps;
    const leaseMs = this.leaseOf(job.kind);
    const timer = setInterval(
      () => {
        jobsRepo
          .extend(db, job.id, this.id, new Date(realNow(clock).getTime() + leaseMs))
          .then((held) => {
            if (!held) {
              clearInterval(timer);
              log.warn({ jobId: job.id, kind: job.kind }, 'job lease lost: another worker may run it again');
            }
          })
          .catch((err) => log.warn({ err, jobId: job.id }, 'job lease not renewed'));
      },
      Math.max(1000, Math.floor(leaseMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Claims and runs what is due now; returns how many jobs ran. Tests call this directly. */
  async runDue(limit = this.opts.concurrency ?? 4, organizationId: string | null = null): Promise<number> {
    const kinds = this.kinds;
    if (kinds.length === 0) return 0;
    const jobs = await jobsRepo.claim(
      this.deps.db,
      this.id,
      kinds,
      realNow(this.deps.clock),
      this.leasesOf(kinds),
      limit,
      { organizationId },
    );
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
    const release = this.holdLease(job);
    // Set once the handler completed the job in a transaction of its own; a transaction that then
    // rolls back throws out of the handler, and the job fails (or runs again) as any other.
    let succeeded = false;
    const attempt: JobAttempt = {
      succeedIn: async (tx) => {
        await jobsRepo.succeed(tx, job.id, this.id, realNow(clock));
        succeeded = true;
      },
    };
    try {
      // The handler runs as work of the job's organization, so its clock is that organization's.
      try {
        await runInScope(() => handler.run(job.payload, job, attempt), job.organization_id);
      } finally {
        release();
      }
      if (!succeeded) await jobsRepo.succeed(db, job.id, this.id, realNow(clock));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const exhausted =
        err instanceof PermanentJobError || (job.max_attempts !== null && job.attempts >= job.max_attempts);
      const retryAt = exhausted
        ? null
        : new Date(realNow(clock).getTime() + (handler.backoffMs ?? defaultBackoff)(job.attempts));
      log.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts, err: message, dead: exhausted }, 'job failed');
      await jobsRepo
        .fail(db, job.id, this.id, realNow(clock), message, retryAt)
        .catch((e) => log.error({ err: e }, 'could not record job failure'));
    }
  }

  /**
   * Wakes the pollers early (an in-process enqueue): with `kind`, only the pool that runs it, so
   * that the other pools do not each send a claim that finds nothing.
   */
  nudge(kind?: string): void {
    this.wake(kind === undefined ? null : new Set([this.poolOf(kind)]));
  }

  /** Wakes the loops of `pools` (null: all of them). */
  private wake(pools: Set<JobPool> | null): void {
    for (const pool of Object.keys(this.nudges) as JobPool[]) if (!pools || pools.has(pool)) this.nudges[pool]++;
    for (const [wake, pool] of this.wakers) if (!pools || pools.has(pool)) wake();
  }

  /**
   * Hears the jobs inserted on any node once their transaction commits and wakes the pools that
   * run them here; kinds this worker does not run wake nothing. When notifications may have been
   * missed (the listening connection came back), every pool claims once.
   */
  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.deps.db.listen(
      JOBS_CHANNEL,
      (payload) => {
        const pools = new Set(
          payload
            .split(',')
            .filter((k) => this.handlers.has(k))
            .map((k) => this.poolOf(k)),
        );
        if (pools.size > 0) this.wake(pools);
      },
      () => this.wake(null),
    );
  }

  /**
   * Polls in the background, one loop per pool, each with its own slots: a free slot is refilled at
   * once, so one slow job (a hanging webhook receiver) never holds up the others, deliveries never
   * take the slots of renders, and one organization holds at most its fair share of a pool (see
   * `jobsRepo.claim`). Renders get two slots at least: with one, the slot kept for an organization
   * holding none would leave nothing to the organization that has work.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    const every = this.opts.concurrency;
    const sizes = {
      ...(every
        ? { renders: every, deliveries: every, maintenance: every }
        : { renders: 2, deliveries: 8, maintenance: 2 }),
      ...this.opts.pools,
    };
    sizes.renders = Math.max(MIN_RENDER_SLOTS, sizes.renders);
    this.listen();
    for (const pool of Object.keys(sizes) as JobPool[]) this.loops.push(this.poll(pool, sizes[pool]));
  }

  private async poll(pool: JobPool, concurrency: number): Promise<void> {
    const firstWait = this.opts.pollMs ?? IDLE_POLL_MS.first;
    const maxWait = Math.max(firstWait, this.opts.idleMaxMs ?? IDLE_POLL_MS.max);
    let wait = firstWait;
    const timer =
      this.opts.idleTimer ??
      ((fire: () => void, ms: number) => {
        const t = setTimeout(fire, ms);
        return () => clearTimeout(t);
      });
    const mine = new Set<Promise<void>>();
    // Wakes this pool's loop when one of its jobs ends and frees a slot.
    const slot = { free: () => {} };
    // Jobs of this pool that ended: one that ends while the pool is claiming is not lost either.
    let ended = 0;
    while (this.running) {
      const seen = this.nudges[pool] + ended;
      let claimed = 0;
      const kinds = this.kindsOf(pool);
      const free = concurrency - mine.size;
      if (free > 0 && kinds.length > 0) {
        try {
          const jobs = await jobsRepo.claim(
            this.deps.db,
            this.id,
            kinds,
            realNow(this.deps.clock),
            this.leasesOf(kinds),
            free,
            { poolSize: concurrency, turns: pool },
          );
          claimed = jobs.length;
          for (const job of jobs) {
            const p: Promise<void> = this.execute(job).finally(() => {
              mine.delete(p);
              this.inFlight.delete(p);
              ended++;
              slot.free();
            });
            mine.add(p);
            this.inFlight.add(p);
          }
        } catch (err) {
          this.deps.log.error({ err, pool }, 'worker poll failed');
        }
      }
      if (claimed > 0) wait = firstWait;
      if (claimed > 0 && mine.size < concurrency) continue;
      if (this.nudges[pool] + ended !== seen) continue;
      const woken = await new Promise<boolean>((resolve) => {
        const done = (woken: boolean) => {
          cancel();
          this.wakers.delete(wake);
          slot.free = () => {};
          resolve(woken);
        };
        const wake = () => done(true);
        const cancel = timer(() => done(false), wait);
        slot.free = wake;
        this.wakers.set(wake, pool);
      });
      // Nothing new was announced: what comes due unannounced is looked for less and less often.
      if (!woken) wait = Math.min(maxWait, wait * 2);
    }
  }

  /** Stops polling and waits for the jobs in hand; a job cut off later is re-run via its lease. */
  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    await Promise.all(this.loops);
    this.loops = [];
    await Promise.all(this.inFlight);
  }
}

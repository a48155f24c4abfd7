import { type Clock, realNow } from '../clock.ts';
import { type Executor, prepared } from '../db/index.ts';

export interface JobOptions {
  /**
   * Whose work the job is (claims are fair between organizations), or null for the platform's own
   * (maintenance, catalog changes). Given by the caller rather than read from the request's
   * scope: keeping a scope across awaits costs every promise of every request (async hooks).
   */
  organizationId: string | null;
  /** When to run first (default: now). */
  runAt?: Date;
  /** Attempts before the job goes `dead`; null retries forever (the legacy callback does). */
  maxAttempts?: number | null;
  /** At most one job per key: a second enqueue with it is a no-op. */
  dedupeKey?: string;
}

export interface JobRow {
  id: number;
  kind: string;
  payload: any;
  status: 'pending' | 'running' | 'succeeded' | 'dead';
  attempts: number;
  max_attempts: number | null;
  run_at: Date;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  /** The organization whose request or job enqueued it (null: operator or system work). */
  organization_id: string | null;
}

/**
 * Writes a job in the caller's transaction (transactional outbox): it exists exactly when the
 * change that caused it committed.
 */
export async function enqueue(
  tx: Executor,
  clock: Clock,
  kind: string,
  payload: unknown,
  opts: JobOptions,
): Promise<void> {
  // Due times are wall-clock: a delay asked for in an organization's test-clock time becomes
  // the same delay from now, and advancing that clock moves the organization's jobs forward.
  const now = realNow(clock);
  const runAt = opts.runAt ? new Date(now.getTime() + (opts.runAt.getTime() - clock.now().getTime())) : now;
  await tx.query(
    prepared(
      `INSERT INTO jobs (kind, payload, max_attempts, run_at, dedupe_key, created_at, updated_at, organization_id)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7) ON CONFLICT (dedupe_key) DO NOTHING`,
    ),
    [
      kind,
      JSON.stringify(payload ?? {}),
      opts.maxAttempts === undefined ? 10 : opts.maxAttempts,
      runAt,
      opts.dedupeKey ?? null,
      now,
      opts.organizationId,
    ],
  );
}

/** The SQL of the queue, in one place. */
export const jobsRepo = {
  /**
   * Claims due jobs of `kinds` fairly: each organization's due jobs are numbered oldest first and
   * taken round by round (every organization's first, then every second, …), and an organization
   * never holds more than `perOrganization` running jobs of these kinds. One organization's flood
   * (thousands of deliveries to a slow receiver) cannot take every slot from the others. Jobs of no
   * organization (system work) form a group of their own.
   */
  async claim(
    ex: Executor,
    workerId: string,
    kinds: string[],
    now: Date,
    /** Each kind's lease, in the order of `kinds`: a quick job of a dead worker is not held as long as a slow one. */
    leasesMs: number[],
    limit: number,
    organizationId: string | null = null,
    perOrganization = limit,
  ): Promise<JobRow[]> {
    // A running job whose lease ran out belonged to a worker that died: it is claimed again.
    return ex.query<JobRow>(
      `WITH busy AS (
         SELECT organization_id, count(*)::int AS n FROM jobs
         WHERE kind = ANY($4::text[]) AND status = 'running' AND locked_until >= $3 AND organization_id IS NOT NULL
         GROUP BY organization_id),
       due AS (
         SELECT id, organization_id, run_at,
                row_number() OVER (PARTITION BY organization_id ORDER BY run_at, id) AS rn
         FROM jobs
         WHERE kind = ANY($4::text[])
           AND ((status = 'pending' AND run_at <= $3) OR (status = 'running' AND locked_until < $3))
           AND ($6::text IS NULL OR organization_id = $6)),
       pick AS (
         SELECT due.id FROM due LEFT JOIN busy ON busy.organization_id = due.organization_id
         WHERE due.organization_id IS NULL OR COALESCE(busy.n, 0) + due.rn <= $7
         ORDER BY due.rn, due.run_at, due.id
         LIMIT $5)
       UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1, updated_at = $3,
         locked_until = $3::timestamptz + make_interval(secs => lease.ms / 1000.0)
       FROM unnest($4::text[], $2::int[]) AS lease(kind, ms)
       WHERE jobs.kind = lease.kind AND jobs.id IN (
         -- The due condition again under the lock: a row another worker claimed and committed since
         -- this statement's snapshot is re-read here and dropped, so no job is claimed twice.
         SELECT id FROM jobs WHERE id IN (SELECT id FROM pick)
           AND ((status = 'pending' AND run_at <= $3) OR (status = 'running' AND locked_until < $3))
         FOR UPDATE SKIP LOCKED)
       RETURNING jobs.*`,
      [workerId, leasesMs, now, kinds, limit, organizationId, perOrganization],
    );
  },
  async succeed(ex: Executor, id: number, workerId: string, now: Date): Promise<void> {
    await ex.query(
      `UPDATE jobs SET status = 'succeeded', finished_at = $3, updated_at = $3, locked_by = NULL, locked_until = NULL, last_error = NULL
       WHERE id = $1 AND locked_by = $2`,
      [id, workerId, now],
    );
  },
  async fail(
    ex: Executor,
    id: number,
    workerId: string,
    now: Date,
    error: string,
    retryAt: Date | null,
  ): Promise<void> {
    await ex.query(
      `UPDATE jobs SET status = $4::text, run_at = COALESCE($5::timestamptz, run_at), last_error = $6, updated_at = $3::timestamptz,
         locked_by = NULL, locked_until = NULL, finished_at = CASE WHEN $4::text = 'dead' THEN $3::timestamptz ELSE NULL END
       WHERE id = $1 AND locked_by = $2`,
      [id, workerId, now, retryAt ? 'pending' : 'dead', retryAt, error.slice(0, 2000)],
    );
  },
  /** Renews a running job's lease; false when the job is no longer this worker's. */
  async extend(ex: Executor, id: number, workerId: string, until: Date): Promise<boolean> {
    const rows = await ex.query(
      `UPDATE jobs SET locked_until = $3 WHERE id = $1 AND locked_by = $2 AND status = 'running' RETURNING id`,
      [id, workerId, until],
    );
    return rows.length === 1;
  },
  async list(ex: Executor, filter: { status?: string; kind?: string; limit: number }): Promise<JobRow[]> {
    return ex.query<JobRow>(
      `SELECT * FROM jobs WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR kind = $2)
       ORDER BY id DESC LIMIT $3`,
      [filter.status ?? null, filter.kind ?? null, filter.limit],
    );
  },
  async retry(ex: Executor, id: number, now: Date): Promise<boolean> {
    const rows = await ex.query(
      `UPDATE jobs SET status = 'pending', run_at = $2, attempts = 0, finished_at = NULL, updated_at = $2
       WHERE id = $1 AND status = 'dead' RETURNING id`,
      [id, now],
    );
    return rows.length === 1;
  },
  async counts(ex: Executor): Promise<Record<string, number>> {
    const rows = await ex.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM jobs GROUP BY status',
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  },
  /** Jobs by kind, state and the organization they work for (null: the service's own). */
  async countsBy(
    ex: Executor,
  ): Promise<Array<{ kind: string; status: string; organization_id: string | null; n: number }>> {
    return ex.query(
      `SELECT kind, status, organization_id, count(*)::int AS n FROM jobs
        GROUP BY kind, status, organization_id ORDER BY kind, status, organization_id NULLS FIRST`,
    );
  },
  /** Brings an organization's queued jobs `ms` closer (its test clock moved forward by that much). */
  async shiftPending(ex: Executor, organizationId: string, ms: number): Promise<void> {
    await ex.query(
      `UPDATE jobs SET run_at = run_at - make_interval(secs => $2::double precision / 1000)
       WHERE organization_id = $1 AND status = 'pending'`,
      [organizationId, ms],
    );
  },
  /** Jobs of the organization due by `now` and not finished. */
  async dueCount(ex: Executor, organizationId: string, now: Date): Promise<number> {
    const rows = await ex.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE organization_id = $1 AND status IN ('pending', 'running') AND run_at <= $2`,
      [organizationId, now],
    );
    return rows[0].n;
  },
  async purgeSucceeded(ex: Executor, before: Date): Promise<number> {
    const rows = await ex.query(`DELETE FROM jobs WHERE status = 'succeeded' AND finished_at < $1 RETURNING id`, [
      before,
    ]);
    return rows.length;
  },
};

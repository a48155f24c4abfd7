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
  /**
   * Jobs of one lane (one webhook endpoint) run one at a time, and can be pushed back together
   * (`jobsRepo.deferLane`) when their receiver refuses.
   */
  lane?: string;
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
  lane: string | null;
}

/** Attempts of a job before it goes `dead`, unless its enqueue says otherwise. */
const MAX_ATTEMPTS = 10;

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
      `INSERT INTO jobs (kind, payload, max_attempts, run_at, dedupe_key, created_at, updated_at, organization_id, lane)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8) ON CONFLICT (dedupe_key) DO NOTHING`,
    ),
    [
      kind,
      JSON.stringify(payload ?? {}),
      opts.maxAttempts === undefined ? MAX_ATTEMPTS : opts.maxAttempts,
      runAt,
      opts.dedupeKey ?? null,
      now,
      opts.organizationId,
      opts.lane ?? null,
    ],
  );
}

/**
 * The SQL of a data-modifying CTE that writes a job of the kind in parameter `$kind`, due at the
 * time in parameter `$now`, for each row of `rows` (a query of `id` and `organization_id`): payload
 * `{<payloadKey>: id}`, dedupe key `<kind>:<id>`. The statement that writes the rows writes their
 * jobs with them, so they exist together with no transaction around them (transactional outbox in
 * one round trip).
 */
export function jobsOfRowsSql(rows: string, p: { kind: number; now: number; payloadKey: string }): string {
  const kind = `$${p.kind}::text`;
  const now = `$${p.now}::timestamptz`;
  return `INSERT INTO jobs (kind, payload, max_attempts, run_at, dedupe_key, created_at, updated_at, organization_id)
     SELECT ${kind}, jsonb_build_object('${p.payloadKey}', r.id), ${MAX_ATTEMPTS}, ${now}, ${kind} || ':' || r.id, ${now}, ${now}, r.organization_id
       FROM (${rows}) r
     ON CONFLICT (dedupe_key) DO NOTHING`;
}

/** Jobs one organization gets in one claim of a pool: the rest wait for the next claim. */
export const FEW_PER_ORGANIZATION = 4;

export interface ClaimOptions {
  /** Only this organization's jobs (running an organization's due work after its clock moved). */
  organizationId?: string | null;
  /**
   * The slots of the pool that claims. With it each organization holds at most its fair share
   * of them (the slots less one, divided among the organizations with work) and the last free
   * slot is kept for an organization holding none; without it nothing is capped.
   */
  poolSize?: number;
  /** Whose turns the claim takes part in (the pool's name; default: the kinds). */
  turns?: string;
}

/** The SQL of the queue, in one place. */
export const jobsRepo = {
  /**
   * Claims due jobs of `kinds`, organizations first: those with due work and room under their
   * share are taken least recently served first (`job_turns`), then at most a few jobs of each,
   * oldest first and one per lane, interleaved round by round. Jobs of no organization (the
   * service's own) form a group that is never capped. The claim's turn is written in the same
   * statement, so the next claim starts with whoever waited longest.
   */
  async claim(
    ex: Executor,
    workerId: string,
    kinds: string[],
    now: Date,
    /** Each kind's lease, in the order of `kinds`: a quick job of a dead worker is not held as long as a slow one. */
    leasesMs: number[],
    limit: number,
    opts: ClaimOptions = {},
  ): Promise<JobRow[]> {
    const poolSize = opts.poolSize ?? null;
    const few = poolSize === null ? limit : FEW_PER_ORGANIZATION;
    // A running job whose lease ran out belonged to a worker that died: it is claimed again.
    return ex.query<JobRow>(
      `WITH active AS (
         SELECT coalesce(organization_id, '') AS org,
                count(*) FILTER (WHERE status = 'running' AND locked_until >= $3)::int AS busy,
                bool_or(status = 'pending' OR locked_until < $3) AS due
         FROM jobs
         WHERE kind = ANY($4::text[]) AND (status = 'running' OR (status = 'pending' AND run_at <= $3))
           AND ($6::text IS NULL OR organization_id = $6)
         GROUP BY 1),
       shares AS (
         -- The fair share of the slots less the one kept free, among the organizations with work.
         SELECT org, busy, due,
           CASE WHEN $7::int IS NULL OR org = '' THEN $5::int
             ELSE greatest(1, ceil(($7::int - 1)::numeric
                    / greatest(1, count(*) FILTER (WHERE org <> '') OVER ())))::int - busy END AS room
         FROM active),
       chosen AS (
         SELECT s.org, least(s.room, $9::int) AS room, coalesce(t.turn, 0) AS turn
         FROM shares s LEFT JOIN job_turns t ON t.pool = $8 AND t.organization_id = s.org
         WHERE s.due AND s.room > 0
         ORDER BY coalesce(t.turn, 0), s.org
         LIMIT $5),
       kept AS (
         -- The last free slot is only for an organization that holds none (or the service's work).
         SELECT CASE WHEN $7::int IS NOT NULL AND NOT EXISTS (
           SELECT 1 FROM shares WHERE due AND (busy = 0 OR org = '')) THEN 1 ELSE 0 END AS n),
       pick AS (
         SELECT j.id FROM chosen c CROSS JOIN LATERAL (
           SELECT id, row_number() OVER (ORDER BY run_at, id) AS rn FROM (
             SELECT DISTINCT ON (coalesce(lane, id::text)) id, run_at FROM (
               SELECT q.id, q.run_at, q.lane FROM jobs q
               WHERE q.kind = ANY($4::text[])
                 AND (q.organization_id = c.org OR (c.org = '' AND q.organization_id IS NULL))
                 AND ((q.status = 'pending' AND q.run_at <= $3) OR (q.status = 'running' AND q.locked_until < $3))
                 AND (q.lane IS NULL OR NOT EXISTS (
                   SELECT 1 FROM jobs r WHERE r.lane = q.lane AND r.status = 'running' AND r.locked_until >= $3))
               ORDER BY q.run_at, q.id LIMIT 100) candidates
             ORDER BY coalesce(lane, id::text), run_at, id) one_per_lane
           ORDER BY run_at, id LIMIT c.room) j
         ORDER BY j.rn, c.turn, c.org
         LIMIT greatest(0, $5::int - (SELECT n FROM kept))),
       claimed AS (
         UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1, updated_at = $3,
           locked_until = $3::timestamptz + make_interval(secs => lease.ms / 1000.0)
         FROM unnest($4::text[], $2::int[]) AS lease(kind, ms)
         WHERE jobs.kind = lease.kind AND jobs.id IN (
           -- The due condition again under the lock: a row another worker claimed and committed since
           -- this statement's snapshot is re-read here and dropped, so no job is claimed twice.
           SELECT id FROM jobs WHERE id IN (SELECT id FROM pick)
             AND ((status = 'pending' AND run_at <= $3) OR (status = 'running' AND locked_until < $3))
           FOR UPDATE SKIP LOCKED)
         RETURNING jobs.*),
       turns AS (
         -- One turn number per claim, the organizations' order within it kept; rows are written in
         -- the order of their key, so two workers' claims never wait on each other crosswise.
         INSERT INTO job_turns (pool, organization_id, turn)
         SELECT $8, s.org, (SELECT nextval('job_turn_seq')) * 1024 + s.rank FROM (
           SELECT c.org, row_number() OVER (ORDER BY c.turn, c.org) AS rank FROM chosen c
           WHERE c.org IN (SELECT coalesce(organization_id, '') FROM claimed)) s
         ORDER BY s.org
         ON CONFLICT (pool, organization_id) DO UPDATE SET turn = excluded.turn)
       SELECT * FROM claimed`,
      [
        workerId,
        leasesMs,
        now,
        kinds,
        limit,
        opts.organizationId ?? null,
        poolSize,
        opts.turns ?? kinds.join(','),
        few,
      ],
    );
  },
  /**
   * Pushes a lane's pending jobs back to `until` at the earliest: a receiver that refused is not
   * tried again by the next job of the same lane a moment later.
   */
  async deferLane(ex: Executor, lane: string, until: Date): Promise<number> {
    const rows = await ex.query(
      `UPDATE jobs SET run_at = $2 WHERE lane = $1 AND status = 'pending' AND run_at < $2 RETURNING id`,
      [lane, until],
    );
    return rows.length;
  },
  /**
   * Claims the pending, due jobs of `kind` under `dedupeKeys` for `workerId` (a running job taking
   * them along, see ./along.ts); one running or locked elsewhere is left.
   */
  async claimByKeys(
    ex: Executor,
    workerId: string,
    kind: string,
    dedupeKeys: string[],
    now: Date,
    leaseMs: number,
  ): Promise<JobRow[]> {
    return ex.query<JobRow>(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1, updated_at = $3,
         locked_until = $3::timestamptz + make_interval(secs => $5::double precision / 1000)
       WHERE id IN (
         SELECT id FROM jobs WHERE dedupe_key = ANY($2::text[]) AND kind = $4 AND status = 'pending' AND run_at <= $3
         FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [workerId, dedupeKeys, now, kind, leaseMs],
    );
  },
  async succeedMany(ex: Executor, ids: number[], workerId: string, now: Date): Promise<void> {
    await ex.query(
      `UPDATE jobs SET status = 'succeeded', finished_at = $3, updated_at = $3, locked_by = NULL, locked_until = NULL, last_error = NULL
       WHERE id = ANY($1::bigint[]) AND locked_by = $2`,
      [ids, workerId, now],
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
  /** The jobs of one kind whose payload holds `value` under `key`, oldest first. */
  async withPayload(ex: Executor, kind: string, key: string, value: string, limit: number): Promise<JobRow[]> {
    return ex.query<JobRow>('SELECT * FROM jobs WHERE kind = $1 AND payload->>$2 = $3 ORDER BY id LIMIT $4', [
      kind,
      key,
      value,
      limit,
    ]);
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

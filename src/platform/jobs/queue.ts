import type { Clock } from '../clock.ts';
import { type Executor, prepared } from '../db/index.ts';

export interface JobOptions {
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
  opts: JobOptions = {},
): Promise<void> {
  const now = clock.now();
  await tx.query(
    prepared(
      `INSERT INTO jobs (kind, payload, max_attempts, run_at, dedupe_key, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (dedupe_key) DO NOTHING`,
    ),
    [
      kind,
      JSON.stringify(payload ?? {}),
      opts.maxAttempts === undefined ? 10 : opts.maxAttempts,
      opts.runAt ?? now,
      opts.dedupeKey ?? null,
      now,
    ],
  );
}

/** The SQL of the queue, in one place. */
export const jobsRepo = {
  async claim(
    ex: Executor,
    workerId: string,
    kinds: string[],
    now: Date,
    leaseMs: number,
    limit: number,
  ): Promise<JobRow[]> {
    // A running job whose lease ran out belonged to a worker that died: it is claimed again.
    return ex.query<JobRow>(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1, locked_until = $2, updated_at = $3
       WHERE id IN (
         SELECT id FROM jobs
         WHERE kind = ANY($4::text[])
           AND ((status = 'pending' AND run_at <= $3) OR (status = 'running' AND locked_until < $3))
         ORDER BY run_at, id
         LIMIT $5
         FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [workerId, new Date(now.getTime() + leaseMs), now, kinds, limit],
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
  async extend(ex: Executor, id: number, workerId: string, until: Date): Promise<void> {
    await ex.query('UPDATE jobs SET locked_until = $3 WHERE id = $1 AND locked_by = $2', [id, workerId, until]);
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
  async purgeSucceeded(ex: Executor, before: Date): Promise<number> {
    const rows = await ex.query(`DELETE FROM jobs WHERE status = 'succeeded' AND finished_at < $1 RETURNING id`, [
      before,
    ]);
    return rows.length;
  },
};

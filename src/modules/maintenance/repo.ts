import type { Db } from '../../platform/db/index.ts';

/** A table that has changed enough since its last vacuum or analyze, by autovacuum's own rules. */
interface Due {
  name: string;
  vacuum: boolean;
}

/** All SQL of the periodic clean-ups that is not another module's. */
export const maintenanceRepo = {
  /**
   * PGlite runs PostgreSQL as one backend without its background workers, so nothing ever vacuums
   * or analyzes it: dead rows of updated and deleted rows (jobs, orders, idempotency keys) pile up
   * and the planner has no statistics. This does what autovacuum would, with its default
   * thresholds, one table per statement, so other statements run between them.
   */
  async vacuumEmbedded(db: Db): Promise<string[]> {
    // The backend's counters reach pg_stat_user_tables at most once a second; this run counts now.
    await db.query('SELECT pg_stat_force_next_flush()');
    const due = await db.query<Due & Record<string, unknown>>(
      `SELECT relname AS name,
         (n_dead_tup > 50 + 0.2 * n_live_tup OR n_ins_since_vacuum > 1000 + 0.2 * n_live_tup) AS vacuum
       FROM pg_stat_user_tables
       WHERE schemaname = 'public'
         AND (n_dead_tup > 50 + 0.2 * n_live_tup OR n_ins_since_vacuum > 1000 + 0.2 * n_live_tup
           OR n_mod_since_analyze > 50 + 0.1 * n_live_tup)
       ORDER BY relname`,
    );
    for (const t of due) {
      const name = `"${t.name.replace(/"/g, '""')}"`;
      await db.exec(t.vacuum ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
    }
    return due.map((t) => t.name);
  },
};

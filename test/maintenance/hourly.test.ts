import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scheduleMaintenance } from '../../src/modules/maintenance/jobs.ts';
import { maintenanceRepo } from '../../src/modules/maintenance/repo.ts';
import { type TestApp, createTestApp } from '../support/app.ts';

interface Stat {
  n_dead_tup: number;
  vacuumed: boolean;
  analyzed: boolean;
}

describe('the hourly maintenance', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const stat = async (table: string) =>
    (
      await t.db.query<Stat & Record<string, unknown>>(
        `SELECT n_dead_tup::int AS n_dead_tup, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed
         FROM pg_stat_user_tables WHERE relname = $1`,
        [table],
      )
    )[0];

  it('vacuums and analyzes what changed enough, as autovacuum would, and nothing else', async (ctx) => {
    if (t.db.kind !== 'pglite') return ctx.skip('PostgreSQL vacuums itself (autovacuum); only PGlite needs this');
    await t.db.exec(`CREATE TABLE churn (id int PRIMARY KEY, v int);
      INSERT INTO churn SELECT g, 0 FROM generate_series(1, 3000) g;
      CREATE TABLE fresh (id int);
      INSERT INTO fresh SELECT g FROM generate_series(1, 200) g;
      CREATE TABLE quiet (id int);
      INSERT INTO quiet VALUES (1)`);
    await t.db.query('UPDATE churn SET v = v + 1');
    await t.db.query('UPDATE churn SET v = v + 1');
    await t.db.query('SELECT pg_stat_force_next_flush()');
    assert.ok((await stat('churn')).n_dead_tup > 0, 'dead rows left by the updates');

    await scheduleMaintenance(t.s);
    await t.s.worker.drain();

    assert.deepEqual(await stat('churn'), { n_dead_tup: 0, vacuumed: true, analyzed: true });
    assert.deepEqual(await stat('fresh'), { n_dead_tup: 0, vacuumed: false, analyzed: true }, '200 new rows: analyzed');
    assert.deepEqual(await stat('quiet'), { n_dead_tup: 0, vacuumed: false, analyzed: false }, 'one row: left alone');
    assert.equal(
      Number((await t.db.query(`SELECT count(*) AS n FROM pg_stats WHERE tablename = 'churn'`))[0].n) > 0,
      true,
      'the planner has statistics now',
    );
    const again = await maintenanceRepo.vacuumEmbedded(t.db);
    assert.ok(!again.includes('churn') && !again.includes('fresh'), `nothing new to do for them: ${again}`);
    assert.equal((await t.db.query<{ v: number }>('SELECT sum(v)::int AS v FROM churn'))[0].v, 6000);
  });

  it('books the next hour before it vacuums, so a failing vacuum never stops the chain', async (ctx) => {
    if (t.db.kind !== 'pglite') return ctx.skip('PostgreSQL vacuums itself (autovacuum); only PGlite needs this');
    t.clock.set('2026-06-01T10:00:00.000Z');
    const exec = t.db.exec.bind(t.db);
    t.db.exec = async (sql: string) => {
      if (/VACUUM|ANALYZE/.test(sql)) throw new Error('vacuum failed');
      return exec(sql);
    };
    await t.db.exec('CREATE TABLE churn2 (id int); INSERT INTO churn2 SELECT g FROM generate_series(1, 500) g');
    try {
      await scheduleMaintenance(t.s);
      await t.s.worker.drain();
    } finally {
      t.db.exec = exec;
    }
    const next = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE kind = 'maintenance.hourly' AND dedupe_key = $1`,
      ['maintenance.hourly:2026-06-01T11:00:00.000Z'],
    );
    assert.equal(next[0].n, 1, 'the next hour is booked although this run failed');
  });
  it('books the next hour first, so a failing clean-up step never stops the chain either', async () => {
    t.clock.set('2026-07-01T10:00:00.000Z');
    const purge = t.s.requestLog.purgeBefore;
    t.s.requestLog.purgeBefore = async () => {
      throw new Error('purge failed');
    };
    try {
      await scheduleMaintenance(t.s);
      await t.s.worker.drain();
    } finally {
      t.s.requestLog.purgeBefore = purge;
    }
    const jobs = await t.db.query<{ dedupe_key: string; status: string; last_error: string | null }>(
      `SELECT dedupe_key, status, last_error FROM jobs WHERE kind = 'maintenance.hourly' AND dedupe_key LIKE 'maintenance.hourly:2026-07-01%'
       ORDER BY dedupe_key`,
    );
    assert.deepEqual(
      jobs.map((j) => j.dedupe_key),
      ['maintenance.hourly:2026-07-01T10:00:00.000Z', 'maintenance.hourly:2026-07-01T11:00:00.000Z'],
      'this hour, and the next one booked once although this run failed',
    );
    assert.notEqual(jobs[0].status, 'succeeded', 'the failed run is not shown as done');
    assert.match(jobs[0].last_error ?? '', /purge failed/);
  });
});

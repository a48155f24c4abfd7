import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { type JobOptions, enqueue, jobsRepo } from '../../src/platform/jobs/queue.ts';
import { PermanentJobError, Worker } from '../../src/platform/jobs/worker.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';

const log = pino({ level: 'silent' }) as never;
const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('jobs', () => {
  let t: TestApp;
  let runs: Array<{ worker: string; payload: any }>;
  const makeWorker = (
    kind: string,
    run: (payload: any) => Promise<void>,
    extra: { leaseMs?: number; backoffMs?: (n: number) => number } = {},
  ) => {
    const w = new Worker({ db: t.db, clock: t.clock, log });
    w.register(kind, {
      run: async (p) => {
        runs.push({ worker: w.id, payload: p });
        await run(p);
      },
      ...extra,
    });
    return w;
  };

  /** A job of `kind` with no organization unless `opts` names one. */
  const add = (kind: string, payload: unknown = {}, opts: Partial<JobOptions> = {}) =>
    enqueue(t.db, t.clock, kind, payload, { organizationId: null, ...opts });
  const jobOf = async (kind: string) => (await jobsRepo.list(t.db, { kind, limit: 1 }))[0];
  /** The payloads' `key` of the jobs run, in the order they ran. */
  const ran = (key: string) => runs.map((r) => r.payload[key]);

  before(async () => {
    t = await createTestApp();
  });
  beforeEach(() => {
    runs = [];
  });
  after(() => t.close());

  it('enqueues in the caller’s transaction: a rollback leaves no job', async () => {
    await assert.rejects(
      t.db.tx(async (tx) => {
        await enqueue(tx, t.clock, 'test.rollback', { n: 1 }, { organizationId: null });
        throw new Error('boom');
      }),
    );
    const w = makeWorker('test.rollback', async () => {});
    assert.equal(await w.drain(), 0);
    await t.db.tx((tx) => enqueue(tx, t.clock, 'test.rollback', { n: 2 }, { organizationId: null }));
    assert.equal(await w.drain(), 1);
    assert.deepEqual(ran('n'), [2]);
  });

  it('never runs one job on two workers at once', async () => {
    for (let i = 0; i < 20; i++) await add('test.once', { i });
    const a = makeWorker('test.once', () => pause(2));
    const b = makeWorker('test.once', () => pause(2));
    await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);
    const ids = ran('i').sort((x, y) => x - y);
    assert.deepEqual(ids, [...Array(20).keys()]);
  });

  it('runs a crashed worker’s job again once its lease has run out', async () => {
    await add('test.crash', { x: 1 });
    const claimed = await jobsRepo.claim(t.db, 'dead-worker', ['test.crash'], t.clock.now(), [30_000], 1);
    assert.equal(claimed.length, 1);
    const w = makeWorker('test.crash', async () => {});
    assert.equal(await w.drain(), 0, 'lease still held');
    t.clock.advance(31_000);
    assert.equal(await w.drain(), 1);
    const job = await jobOf('test.crash');
    assert.equal(job.status, 'succeeded');
    assert.equal(job.attempts, 2);
  });

  it('leases each kind of job for its own time when one claim takes several kinds', async () => {
    await t.db.query("DELETE FROM jobs WHERE kind IN ('test.quick', 'test.slow')");
    await add('test.quick');
    await add('test.slow');
    const now = t.clock.now();
    const claimed = await jobsRepo.claim(t.db, 'w1', ['test.quick', 'test.slow'], now, [10_000, 300_000], 10);
    const until = Object.fromEntries(claimed.map((j) => [j.kind, j.locked_until!.getTime() - now.getTime()]));
    assert.deepEqual(until, { 'test.quick': 10_000, 'test.slow': 300_000 });
    await t.db.query("DELETE FROM jobs WHERE kind IN ('test.quick', 'test.slow')");
  });

  it('renews a running job’s lease, so a job longer than its lease keeps its claim, and lets it go when done', async () => {
    await t.db.query("DELETE FROM jobs WHERE kind = 'test.long'");
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    const w = makeWorker('test.long', () => hang, { leaseMs: 3000 });
    const other = makeWorker('test.long', async () => {}, { leaseMs: 3000 });
    await add('test.long');
    const running = w.drain(1);
    const lockedUntil = async () =>
      (await t.db.query<{ u: Date | null }>("SELECT locked_until AS u FROM jobs WHERE kind = 'test.long'"))[0].u;
    try {
      for (let i = 0; i < 100 && runs.length === 0; i++) await pause(20);
      assert.equal(runs.length, 1, 'the job started');
      const first = (await lockedUntil())!.getTime();
      // Past the first lease on the clock the worker renews with: only its renewal keeps the claim.
      t.clock.advance(5000);
      for (let i = 0; i < 100 && (await lockedUntil())!.getTime() === first; i++) await pause(50);
      assert.ok((await lockedUntil())!.getTime() >= first + 5000, 'renewed from the later time');
      assert.equal(await other.drain(1), 0, 'another worker does not take a job whose worker is alive');
    } finally {
      release();
      await running;
    }
    const job = await jobOf('test.long');
    assert.equal(job.status, 'succeeded');
    assert.equal(job.attempts, 1);
    assert.equal(job.locked_until, null);
  });

  it('retries with back-off and goes dead after the last attempt', async () => {
    await add('test.fail', {}, { maxAttempts: 3 });
    const w = makeWorker(
      'test.fail',
      async () => {
        throw new Error('receiver down');
      },
      { backoffMs: (n) => n * 1000 },
    );
    assert.equal(await w.drain(), 1);
    let job = await jobOf('test.fail');
    assert.equal(job.status, 'pending');
    assert.equal(job.last_error, 'receiver down');
    assert.equal(await w.drain(), 0, 'not due before the back-off');
    t.clock.advance(1000);
    assert.equal(await w.drain(), 1);
    t.clock.advance(2000);
    assert.equal(await w.drain(), 1);
    job = await jobOf('test.fail');
    assert.equal(job.status, 'dead');
    assert.equal(job.attempts, 3);
    const listed = await operator(t, 'GET', '/jobs?status=dead&kind=test.fail');
    assert.equal(listed.data.jobs.length, 1);
    const retried = await operator(t, 'POST', `/jobs/${job.id}/retry`);
    assert.equal(retried.statusCode, 200);
    job = await jobOf('test.fail');
    assert.equal(job.status, 'pending');
    assert.equal((await operator(t, 'POST', '/jobs/999999/retry')).statusCode, 404);
  });

  it("completes a job in its handler's transaction, and runs it again when that transaction rolls back", async () => {
    await add('test.within', { n: 1 });
    let fail = true;
    const w = new Worker({ db: t.db, clock: t.clock, log });
    w.register('test.within', {
      backoffMs: () => 1000,
      run: (_p, job, attempt) =>
        t.db.tx(async (tx) => {
          await attempt.succeedIn(tx);
          // Inside the transaction the job reads as succeeded; nothing outside sees it before the commit.
          const [seen] = await tx.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [job.id]);
          assert.equal(seen.status, 'succeeded');
          if (fail) throw new Error('crashed before the commit');
        }),
    });
    assert.equal(await w.drain(), 1);
    let job = await jobOf('test.within');
    assert.equal(job.status, 'pending', 'the rolled-back completion leaves the job to run again');
    assert.equal(job.last_error, 'crashed before the commit');
    fail = false;
    t.clock.advance(1000);
    assert.equal(await w.drain(), 1);
    job = await jobOf('test.within');
    assert.equal(job.status, 'succeeded');
    assert.equal(job.attempts, 2);
    assert.equal(job.locked_by, null);
    assert.equal(await w.drain(), 0);
  });

  it('sends a permanent failure straight to dead', async () => {
    await add('test.permanent');
    const w = makeWorker('test.permanent', async () => {
      throw new PermanentJobError('bad input');
    });
    await w.drain();
    const job = await jobOf('test.permanent');
    assert.equal(job.status, 'dead');
    assert.equal(job.attempts, 1);
  });

  it('keeps one job per dedupe key', async () => {
    await add('test.dedupe', { a: 1 }, { dedupeKey: 'same' });
    await add('test.dedupe', { a: 2 }, { dedupeKey: 'same' });
    const w = makeWorker('test.dedupe', async () => {});
    assert.equal(await w.drain(), 1);
    assert.deepEqual(ran('a'), [1]);
  });

  it('does not run jobs scheduled in the future', async () => {
    await add('test.later', {}, { runAt: new Date(t.clock.now().getTime() + 60_000) });
    const w = makeWorker('test.later', async () => {});
    assert.equal(await w.drain(), 0);
    t.clock.advance(60_000);
    assert.equal(await w.drain(), 1);
  });

  it('polls in the background and stops cleanly', async () => {
    const w = makeWorker('test.poll', async () => {});
    w.start();
    await add('test.poll');
    w.nudge();
    for (let i = 0; i < 50 && runs.length === 0; i++) await pause(20);
    await w.stop();
    assert.equal(runs.length, 1);
  });

  it("wakes only the pool of a nudged job's kind", async () => {
    // A database that counts the claims each pool sends (a claim names the pool's kinds).
    const claims: string[] = [];
    const db = Object.create(t.db) as typeof t.db;
    db.query = (sql, params) => {
      if (sql.includes('WITH active AS')) claims.push(String((params as unknown[][])[3][0]));
      return t.db.query(sql, params);
    };
    const w = new Worker({ db, clock: t.clock, log }, { pollMs: 60_000 });
    const ran: string[] = [];
    w.register('test.pool-maintenance', { run: async () => void ran.push('maintenance') });
    w.register('test.pool-deliveries', { pool: 'deliveries', run: async () => void ran.push('deliveries') });
    w.start();
    for (let i = 0; i < 100 && claims.length < 2; i++) await pause(10);
    claims.length = 0;
    await add('test.pool-maintenance');
    w.nudge('test.pool-maintenance');
    for (let i = 0; i < 200 && ran.length === 0; i++) await pause(10);
    const sent = [...new Set(claims)];
    await w.stop();
    assert.deepEqual(ran, ['maintenance']);
    assert.deepEqual(sent, ['test.pool-maintenance'], 'the deliveries pool sent no claim');
  });

  it('keeps running other jobs while one hangs', async () => {
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    const w = new Worker({ db: t.db, clock: t.clock, log }, { concurrency: 2, pollMs: 20 });
    const done: string[] = [];
    w.register('test.slowfast', {
      run: async (p) => {
        if (p.slow) await hang;
        done.push(p.name);
      },
    });
    await add('test.slowfast', { slow: true, name: 'slow' });
    for (let i = 0; i < 5; i++)
      await enqueue(t.db, t.clock, 'test.slowfast', { name: `fast${i}` }, { organizationId: null });
    w.start();
    for (let i = 0; i < 200 && done.length < 5; i++) await pause(20);
    assert.equal(done.length, 5, 'the five quick jobs ran past the hanging one');
    release();
    await w.stop();
    assert.equal(done.length, 6);
  });

  describe('fair claims across organizations', () => {
    const KIND = 'test.fair';
    const claim = (limit: number, poolSize = 8) =>
      jobsRepo.claim(t.db, 'w1', [KIND], t.clock.now(), [60_000], limit, { poolSize, turns: 'test-fair' });
    const orgOf = (jobs: Array<{ organization_id: string | null }>) => jobs.map((j) => j.organization_id).sort();
    const finish = async (jobs: Array<{ id: number }>) => {
      for (const j of jobs) await jobsRepo.succeed(t.db, j.id, 'w1', t.clock.now());
    };
    beforeEach(async () => {
      await t.db.query('DELETE FROM jobs WHERE kind = $1', [KIND]);
      await t.db.query("DELETE FROM job_turns WHERE pool = 'test-fair'");
    });

    it("claims the other organization's job next although one organization's backlog is older", async () => {
      const [a, b] = t.seed.organizations.map((o) => o.reference);
      for (let i = 0; i < 30; i++) await enqueue(t.db, t.clock, KIND, { i }, { organizationId: a });
      // A is served while B has nothing: one slot frees at a time.
      for (let i = 0; i < 3; i++) {
        const got = await claim(1, 2);
        assert.deepEqual(orgOf(got), [a]);
        await finish(got);
      }
      t.clock.advance(1000);
      await enqueue(t.db, t.clock, KIND, { b: true }, { organizationId: b });
      const next = await claim(1, 2);
      assert.deepEqual(orgOf(next), [b], "B's one job goes before A's 27 older ones");
      await finish(next);
      assert.deepEqual(orgOf(await claim(1, 2)), [a], 'then A again');
    });

    it('takes organizations least recently served first, a few jobs each, round by round', async () => {
      const [a, b] = t.seed.organizations.map((o) => o.reference);
      for (let i = 0; i < 20; i++) await enqueue(t.db, t.clock, KIND, { i }, { organizationId: a });
      for (let i = 0; i < 20; i++) await enqueue(t.db, t.clock, KIND, { i }, { organizationId: b });
      const got = await claim(8, 64);
      assert.deepEqual(orgOf(got), [a, a, a, a, b, b, b, b].sort(), 'four each, not eight of the older backlog');
      await finish(got);
      const more = await claim(3, 64);
      assert.equal(more.length, 3);
      await finish(more);
    });

    it('caps an organization at its fair share and keeps the last slot for an organization holding none', async () => {
      const [a, b] = t.seed.organizations.map((o) => o.reference);
      // Jobs name their organization without a reference to it: a third one needs no seed.
      const c = 'Organization_third';
      for (let i = 0; i < 20; i++) await enqueue(t.db, t.clock, KIND, { i }, { organizationId: a });
      const a1 = await claim(8);
      const a2 = await claim(8 - a1.length);
      assert.equal(a1.length + a2.length, 7, 'alone, A holds the pool less the kept slot');
      assert.deepEqual(await claim(1), [], 'the kept slot is not for A');
      for (let i = 0; i < 5; i++) await enqueue(t.db, t.clock, KIND, { i }, { organizationId: b });
      assert.deepEqual(orgOf(await claim(1)), [b], 'B takes the kept slot at once');
      // Two organizations with work: each holds at most ceil(7 / 2) = 4. A frees three slots.
      await finish([...a1, ...a2].slice(0, 3));
      const after3 = await claim(3);
      assert.deepEqual(orgOf(after3), [b, b], 'B fills up to its share; the last free slot is kept');
      await enqueue(t.db, t.clock, KIND, { c: true }, { organizationId: c });
      assert.deepEqual(orgOf(await claim(1)), [c], 'C, holding none, gets the kept slot');
    });

    it('runs one job of a lane at a time, and a deferred lane waits as a whole', async () => {
      const [a] = t.seed.organizations.map((o) => o.reference);
      for (let i = 0; i < 3; i++)
        await enqueue(t.db, t.clock, KIND, { lane: 'x', i }, { organizationId: a, lane: 'x' });
      await enqueue(t.db, t.clock, KIND, { lane: 'y' }, { organizationId: a, lane: 'y' });
      const first = await claim(8, 64);
      assert.deepEqual(first.map((j) => j.payload.lane).sort(), ['x', 'y'], 'one job per lane');
      assert.deepEqual(await claim(8, 64), [], "x's next job waits while one of x runs");
      await finish(first);
      const until = new Date(t.clock.now().getTime() + 60_000);
      assert.equal(await jobsRepo.deferLane(t.db, 'x', until), 2);
      assert.deepEqual(await claim(8, 64), [], 'the deferred lane is not due');
      t.clock.advance(60_000);
      const lanes = (await claim(8, 64)).map((j) => j.payload.lane);
      assert.deepEqual(lanes, ['x']);
    });
  });

  it("starts another organization's render while one organization's backlog runs (two render slots, one kept)", async () => {
    const [a, b] = t.seed.organizations.map((o) => o.reference);
    await t.db.query("DELETE FROM jobs WHERE kind = 'test.backlog'");
    const releases: Array<() => void> = [];
    const started: string[] = [];
    const w = new Worker({ db: t.db, clock: t.clock, log }, { pollMs: 20 });
    w.register('test.backlog', {
      pool: 'renders',
      run: (p) => {
        started.push(p.org);
        return new Promise<void>((r) => releases.push(r));
      },
    });
    for (let i = 0; i < 10; i++) await enqueue(t.db, t.clock, 'test.backlog', { org: 'a' }, { organizationId: a });
    w.start();
    try {
      for (let i = 0; i < 100 && started.length === 0; i++) await pause(20);
      await enqueue(t.db, t.clock, 'test.backlog', { org: 'b' }, { organizationId: b });
      w.nudge();
      for (let i = 0; i < 100 && !started.includes('b'); i++) await pause(20);
      assert.deepEqual(started, ['a', 'b'], "B's render starts beside A's first, before A's nine others");
    } finally {
      for (let i = 0; i < 100 && started.length < 11; i++) {
        for (const r of releases.splice(0)) r();
        await pause(20);
      }
      for (const r of releases.splice(0)) r();
      await w.stop();
    }
    await t.db.query("DELETE FROM jobs WHERE kind = 'test.backlog'");
  });

  it('runs renders in their own pool while deliveries hang', async () => {
    const [a, b] = t.seed.organizations.map((o) => o.reference);
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    const done: string[] = [];
    const w = new Worker({ db: t.db, clock: t.clock, log }, { pollMs: 20, pools: { deliveries: 2, renders: 2 } });
    w.register('test.deliver', { pool: 'deliveries', run: () => hang });
    w.register('test.render', { pool: 'renders', run: async () => void done.push('render') });
    for (let i = 0; i < 10; i++) await enqueue(t.db, t.clock, 'test.deliver', { i }, { organizationId: a });
    await enqueue(t.db, t.clock, 'test.render', {}, { organizationId: b });
    w.start();
    try {
      const running = "SELECT count(*)::int AS n FROM jobs WHERE kind = 'test.deliver' AND status = 'running'";
      const runningDeliveries = async () => (await t.db.query<{ n: number }>(running))[0].n;
      for (let i = 0; i < 200 && (done.length === 0 || (await runningDeliveries()) === 0); i++) await pause(20);
      assert.deepEqual(done, ['render'], "B's render ran although every delivery slot hangs");
      assert.equal(await runningDeliveries(), 1, 'alone, an organization leaves the last delivery slot free');
    } finally {
      // A failed check must not leave the hanging jobs holding the worker (and the test process).
      release();
      await w.stop();
    }
    await t.db.query("DELETE FROM jobs WHERE kind IN ('test.deliver', 'test.render')");
  });
});

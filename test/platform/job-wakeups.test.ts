import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { enqueue } from '../../src/platform/jobs/queue.ts';
import { Worker } from '../../src/platform/jobs/worker.ts';
import { type TestApp, createTestApp } from '../support/app.ts';

const log = pino({ level: 'silent' }) as never;
const KIND = 'test.wakeup';

describe('idle job pools', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('claim less and less often while idle, and a committed job wakes its pool at once', async () => {
    // The pools' waits run on a simulated clock the test moves by hand; claims are counted at the
    // simulated time they are sent. The database (and its connections' timers) run in real time.
    let simulated = 0;
    const timers = new Set<{ at: number; fire: () => void }>();
    const idleTimer = (fire: () => void, ms: number) => {
      const entry = { at: simulated + ms, fire };
      timers.add(entry);
      return () => void timers.delete(entry);
    };
    const tick = (ms: number) => {
      simulated += ms;
      for (const entry of [...timers].filter((e) => e.at <= simulated)) {
        timers.delete(entry);
        entry.fire();
      }
    };
    const claimedAt: number[] = [];
    const inFlight = new Set<Promise<unknown>>();
    const db = Object.create(t.db) as typeof t.db;
    db.query = (sql, params) => {
      const p = t.db.query<any>(sql, params);
      if (sql.includes('WITH active AS')) {
        claimedAt.push(simulated);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p)).catch(() => {});
      }
      return p;
    };
    let heard!: () => void;
    const listening = new Promise<void>((r) => (heard = r));
    db.listen = (channel, onMessage, onReset) =>
      t.db.listen(channel, onMessage, () => {
        onReset();
        heard();
      });
    /** Until the claims sent have answered and the loops wait on their timers again. */
    const settle = async () => {
      do {
        await Promise.allSettled([...inFlight]);
        await new Promise((r) => setImmediate(r));
      } while (inFlight.size > 0);
    };

    let ran!: () => void;
    const done = new Promise<void>((r) => (ran = r));
    const w = new Worker({ db, clock: t.clock, log }, { pollMs: 500, idleMaxMs: 4000, idleTimer });
    w.register(KIND, { run: async () => ran() });
    w.start();
    try {
      // On PostgreSQL the listening connection, once connected, wakes every pool (notifications
      // may have been missed before); PGlite listens at once. Either way nothing is claimed after
      // the start's own claims until a wait ends.
      if (t.db.kind === 'postgres') await listening;
      await settle();
      while (simulated < 20_000) {
        tick(100);
        await settle();
      }
      const idle = [0, ...claimedAt.filter((at) => at > 0)];
      const gaps = idle.slice(1).map((at, i) => at - idle[i]);
      assert.deepEqual(gaps.slice(0, 4), [500, 1000, 2000, 4000], 'each empty wait doubles');
      assert.ok(
        gaps.slice(4).every((g) => g === 4000),
        `then stays at the longest wait: ${gaps}`,
      );
      assert.ok(idle.length <= 8, `${idle.length} claims in 20 s idle, against 41 at a fixed 500 ms`);

      // A job committed now is claimed without any timer firing: the insert's notification wakes the pool.
      const before = claimedAt.length;
      await t.db.tx((tx) => enqueue(tx, t.clock, KIND, {}, { organizationId: null }));
      await done;
      const since = claimedAt.slice(before);
      assert.ok(since.length > 0 && since.every((at) => at === simulated), 'claimed with no simulated time passed');
    } finally {
      await w.stop();
    }
  });
});

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

  it('claim less and less often while idle, and a committed job wakes its pool at once', async (ctx) => {
    // The pools' waits run on mocked timers: the test moves their time by hand. Claims are counted
    // at the simulated time they are sent; the database runs in real time.
    ctx.mock.timers.enable({ apis: ['setTimeout'] });
    let simulated = 0;
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
    /** Until the claims sent have answered and the loops wait on their timers again. */
    const settle = async () => {
      do {
        await Promise.allSettled([...inFlight]);
        await new Promise((r) => setImmediate(r));
      } while (inFlight.size > 0);
    };

    let ran!: () => void;
    const done = new Promise<void>((r) => (ran = r));
    const w = new Worker({ db, clock: t.clock, log }, { pollMs: 500, idleMaxMs: 4000 });
    w.register(KIND, { run: async () => ran() });
    w.start();
    try {
      await settle();
      while (simulated < 20_000) {
        simulated += 100;
        ctx.mock.timers.tick(100);
        await settle();
      }
      const gaps = claimedAt.slice(1).map((at, i) => at - claimedAt[i]);
      assert.deepEqual(gaps.slice(0, 4), [500, 1000, 2000, 4000], 'each empty wait doubles');
      assert.ok(
        gaps.slice(4).every((g) => g === 4000),
        `then stays at the longest wait: ${gaps}`,
      );
      assert.ok(claimedAt.length <= 8, `${claimedAt.length} claims in 20 s idle, against 41 at a fixed 500 ms`);

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

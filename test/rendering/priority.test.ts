import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import {
  SCHED_IDLE,
  backgroundSettled,
  schedulingPolicy,
  setPixelThreadPolicy,
  threadIds,
  toBackground,
} from '../../src/platform/background-threads.ts';
import { pixelThreadIds } from '../../src/modules/rendering/pixel-threads.ts';
import { type TestApp, createTestApp } from '../support/app.ts';
import { createRender, seeded, uploadSolid } from './helpers.ts';

const threads = () =>
  new Map(
    readdirSync('/proc/self/task').map((tid) => [tid, readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()]),
  );

const linux = process.platform === 'linux';
// The policy a server starts with (PIXEL_THREADS unset), whatever the test pass preloaded.
setPixelThreadPolicy('idle');
const chrt = linux && spawnSync('chrt', ['--pid', String(process.pid)]).status === 0;

describe('render work runs below the event loop', { skip: !linux && 'Linux only' }, () => {
  let t: TestApp;
  /** The event loop's nice value (the tests may themselves run niced). */
  const loopNice = getPriority(0);
  before(async () => {
    t = await createTestApp();
    const res = await createRender(t, seeded(t).cStudioIp15, await uploadSolid(t, { r: 20, g: 160, b: 90 }));
    assert.equal(res.statusCode, 200, res.body);
    await t.s.worker.drain();
    const rendered = await t.s.rendering.findRender(t.seed.organizations[0].reference, res.data.render.reference);
    assert.equal(rendered?.status, 'completed');
    await backgroundSettled();
  });
  after(() => t.close());

  // The compositor's pool, by the ids its threads tell (through tsx, a thread's loader starts a
  // thread of its own, which does no pixel work and keeps its priority).
  const compositor = () => [...threads()].filter(([tid]) => pixelThreadIds().includes(tid));
  const libvips = () => [...threads()].filter(([, name]) => name === 'libvips worker');

  it("lowers the compositor's own worker threads, not only libvips' ones", () => {
    const started = compositor();
    assert.ok(started.length > 0, 'the render started its compositor threads');
    for (const [tid, name] of started)
      assert.ok(getPriority(Number(tid)) >= Math.max(10, loopNice), `thread ${tid} (${name}) at nice 10`);
    assert.equal(getPriority(0), loopNice, 'the event loop keeps its priority');
  });

  it("runs the compositor's and libvips' threads at SCHED_IDLE, the event loop and the rest not", {
    skip: !chrt && 'no chrt (util-linux) here: the threads stay at nice 10',
  }, () => {
    const pixelThreads = [...compositor(), ...libvips()];
    assert.ok(libvips().length > 0, 'the render ran libvips threads');
    for (const [tid, name] of pixelThreads) {
      const policy = schedulingPolicy(tid);
      if (policy !== null) assert.equal(policy, SCHED_IDLE, `thread ${tid} (${name}) at SCHED_IDLE`);
    }
    // The event loop, libuv's pool (file I/O of API requests), the database thread and any other
    // thread, one started while the compositor's started included, stay normal.
    for (const [tid, name] of threads())
      if (!pixelThreads.some(([t]) => t === tid))
        assert.equal(schedulingPolicy(tid) ?? 0, 0, `thread ${tid} (${name}) keeps SCHED_OTHER`);
    assert.equal(schedulingPolicy(process.pid), 0, 'the event loop stays at SCHED_OTHER');
  });
});

describe('PIXEL_THREADS=nice', { skip: !linux && 'Linux only' }, () => {
  after(() => setPixelThreadPolicy('idle'));

  it('puts the threads at nice 10 and leaves their policy normal', async () => {
    setPixelThreadPolicy('nice');
    const known = threadIds();
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    try {
      await once(worker, 'online');
      const started = [...threadIds()].filter((tid) => !known.has(tid));
      assert.ok(started.length > 0, 'the worker thread started');
      toBackground(started);
      await backgroundSettled();
      // The worker's own thread lives until it is terminated; a helper thread may come and go.
      const alive = started.filter((tid) => schedulingPolicy(tid) !== null);
      assert.ok(alive.length > 0, 'the worker thread runs');
      for (const tid of alive) {
        assert.ok(getPriority(Number(tid)) >= Math.max(10, getPriority(0)), `thread ${tid} at nice 10`);
        assert.equal(schedulingPolicy(tid), 0, `thread ${tid} keeps SCHED_OTHER`);
      }
    } finally {
      await worker.terminate();
    }
  });
});

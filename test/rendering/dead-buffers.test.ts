import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectNow, forcedCollections } from '../../src/platform/memory/collect.ts';
import { COLLECT_EVERY_MS, PILE_BYTES, collectDeadBuffers } from '../../src/modules/rendering/dead-buffers.ts';
import { pixelJobsRun, thumbHashOnThreads } from '../../src/modules/rendering/pixel-threads.ts';

const MB = 1024 * 1024;
const held = () => process.memoryUsage().arrayBuffers;
/** V8 frees a collected buffer's memory off the thread that collected it, shortly after. */
const settle = () => new Promise((r) => setTimeout(r, 50));

/** Dead shared buffers of `bytes` in all, each first posted to a compositor thread (as a render's are). */
async function pileOnThreads(bytes: number): Promise<void> {
  for (let made = 0; made < bytes; made += 16 * MB) {
    const rgba = new Uint8Array(new SharedArrayBuffer(16 * MB));
    rgba.fill(200, 0, 4);
    // The thread reads one pixel; its copy of the message is a view of the whole buffer.
    await thumbHashOnThreads(1, 1, rgba.subarray(0, 4));
  }
}

describe('dead render buffers are collected once they pile up', () => {
  it('does nothing while the array buffers are within what renders keep alive', async () => {
    collectNow();
    assert.ok(held() < PILE_BYTES, `${Math.round(held() / MB)} MB held at the start`);
    const before = forcedCollections();
    const threadJobs = pixelJobsRun().collect;
    assert.equal(await collectDeadBuffers(), null);
    assert.deepEqual(forcedCollections(), before);
    assert.equal(pixelJobsRun().collect, threadJobs);
  });

  it('frees a pile the event loop has collected but the compositor thread still holds views of', async () => {
    const start = performance.now() + 100 * COLLECT_EVERY_MS;
    await pileOnThreads(PILE_BYTES + 64 * MB);
    collectNow();
    await settle();
    // The thread's copies of the messages keep every buffer alive through the event loop's collection.
    assert.ok(held() > PILE_BYTES, `${Math.round(held() / MB)} MB held after the event loop's collection`);

    const jobs = pixelJobsRun().collect;
    const before = forcedCollections();
    assert.equal(await collectDeadBuffers(start), 'threads');
    assert.equal(pixelJobsRun().collect, jobs + 1, 'the thread collected');
    assert.deepEqual(
      forcedCollections(),
      { eventLoop: before.eventLoop, threads: before.threads + 1 },
      'the event loop was left to its own collections',
    );
    await settle();
    assert.ok(held() < PILE_BYTES, `${Math.round(held() / MB)} MB held after the thread collected`);
    assert.equal(await collectDeadBuffers(start + COLLECT_EVERY_MS), null, 'no pile, nothing to do');
  });

  it("collects on the event loop too when a pile outlasts the threads' collection, at most every COLLECT_EVERY_MS", async () => {
    const start = performance.now() + 200 * COLLECT_EVERY_MS;
    await pileOnThreads(PILE_BYTES + 64 * MB);
    const before = forcedCollections();
    assert.equal(await collectDeadBuffers(start), 'threads');
    await settle();
    // The event loop has not collected since the pile was made: its side of it holds the buffers.
    assert.ok(held() > PILE_BYTES, `${Math.round(held() / MB)} MB held after the thread's collection alone`);
    assert.equal(await collectDeadBuffers(start + COLLECT_EVERY_MS - 1), null, 'too soon');
    assert.equal(await collectDeadBuffers(start + COLLECT_EVERY_MS), 'everywhere');
    assert.deepEqual(forcedCollections(), { eventLoop: before.eventLoop + 1, threads: before.threads + 2 });
    await settle();
    assert.ok(held() < PILE_BYTES, `${Math.round(held() / MB)} MB held after both collected`);
  });
});

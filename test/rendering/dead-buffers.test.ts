import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectNow, forcedCollections } from '../../src/platform/memory/collect.ts';
import { COLLECT_EVERY_MS, PILE_BYTES, collectDeadBuffers } from '../../src/modules/rendering/dead-buffers.ts';
import { pixelJobsRun, thumbHashOnThreads } from '../../src/modules/rendering/pixel-threads.ts';

const MB = 1024 * 1024;
const held = () => process.memoryUsage().arrayBuffers;

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
    assert.equal(await collectDeadBuffers(), false);
    assert.equal(forcedCollections(), before);
  });

  it("frees a pile the compositor thread still holds views of, which the event loop's collection alone leaves", async () => {
    await pileOnThreads(PILE_BYTES + 64 * MB);
    collectNow();
    await new Promise((r) => setTimeout(r, 50));
    // The thread's copies of the messages keep every buffer alive.
    assert.ok(held() > PILE_BYTES, `${Math.round(held() / MB)} MB held after the event loop's collection`);

    const jobs = pixelJobsRun().collect;
    assert.equal(await collectDeadBuffers(), true);
    assert.equal(pixelJobsRun().collect, jobs + 1, 'the thread collected');
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(held() < PILE_BYTES, `${Math.round(held() / MB)} MB held after both collected`);
  });

  it('collects at most once within COLLECT_EVERY_MS', async () => {
    const start = performance.now() + 10 * COLLECT_EVERY_MS;
    await pileOnThreads(PILE_BYTES + 16 * MB);
    assert.equal(await collectDeadBuffers(start), true);
    await pileOnThreads(PILE_BYTES + 16 * MB);
    assert.equal(await collectDeadBuffers(start + COLLECT_EVERY_MS - 1), false, 'too soon');
    assert.ok(held() > PILE_BYTES);
    assert.equal(await collectDeadBuffers(start + COLLECT_EVERY_MS), true);
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(held() < PILE_BYTES, `${Math.round(held() / MB)} MB held`);
  });
});

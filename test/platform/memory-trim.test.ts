import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startMemoryTrim } from '../../src/platform/memory/trim.ts';
import { serviceModule, serviceModuleArgs } from '../support/entry.ts';

const run = promisify(execFile);
const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
const glibc = process.platform === 'linux' && Boolean(report.header?.glibcVersionRuntime);

/**
 * A fresh process fills the C heap with 64 KB blocks (below glibc's mmap threshold, so they live in
 * its arenas), frees every other one and measures its resident memory before and after a trim: the
 * freed halves sit between live blocks, where glibc alone never gives them back.
 */
async function holes(): Promise<{ freedMb: number; released: boolean; beforeMb: number; afterMb: number }> {
  const script = `
    const { startMemoryTrim } = await import(${JSON.stringify(serviceModule('platform/memory/trim.ts'))});
    const blocks = Array.from({ length: 1600 }, () => Buffer.allocUnsafeSlow(64 * 1024).fill(1));
    const kept = blocks.filter((_, i) => i % 2 === 0);
    blocks.length = 0;
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 200));
    globalThis.gc();
    const before = process.memoryUsage.rss();
    const released = await startMemoryTrim(3600).trim();
    const after = process.memoryUsage.rss();
    console.log(JSON.stringify({ released, beforeMb: before / 1048576, afterMb: after / 1048576, kept: kept.length }));`;
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', ...serviceModuleArgs(), '--input-type=module', '-e', script],
    {
      env: { ...process.env, MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576' },
    },
  );
  const r = JSON.parse(stdout);
  return { ...r, freedMb: r.beforeMb - r.afterMb };
}

describe('startMemoryTrim', () => {
  it('gives the freed pages between live blocks back to the system', {
    skip: !glibc && 'needs Linux with glibc',
  }, async () => {
    const r = await holes();
    assert.equal(r.released, true);
    // 800 blocks of 64 KB were freed: ~50 MB, of which the trim must return most.
    assert.ok(
      r.freedMb > 30,
      `resident memory fell by ${r.freedMb.toFixed(1)} MB (${r.beforeMb.toFixed(0)} → ${r.afterMb.toFixed(0)})`,
    );
  });

  it('shares one trim between callers that ask while it runs', {
    skip: !glibc && 'needs Linux with glibc',
  }, async () => {
    const memory = startMemoryTrim(3600);
    const first = memory.trim();
    assert.equal(memory.trim(), first);
    await first;
    const second = memory.trim();
    assert.notEqual(second, first, 'a later call starts a new trim');
    await second;
    memory.stop();
  });

  it('trims on its own every so many seconds until stopped', {
    skip: !glibc && 'needs Linux with glibc',
  }, async () => {
    let trims = 0;
    const log = { debug: (_: unknown, msg?: string) => void (msg === 'memory trimmed' && trims++), warn: () => {} };
    const memory = startMemoryTrim(1, log as unknown as Parameters<typeof startMemoryTrim>[1]);
    // Nobody calls trim(): only the timer can; wait for two of its runs (at most 10 s).
    for (let waited = 0; trims < 2 && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    memory.stop();
    assert.ok(trims >= 2, `the timer trimmed ${trims} times`);
    const stoppedAt = trims;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(trims, stoppedAt, 'no trim after stop()');
  });

  it('does nothing when switched off', async () => {
    const memory = startMemoryTrim(0);
    assert.equal(await memory.trim(), false);
    memory.stop();
  });
});

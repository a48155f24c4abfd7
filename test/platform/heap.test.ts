import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { serviceModule, serviceModuleArgs } from '../support/entry.ts';

const run = promisify(execFile);

/**
 * A process with ~20 MB alive that keeps making garbage which outlives two young collections (as
 * list pages' rows do while they wait for the database): its heap's peak, with `percent` passed to
 * boundHeapGrowth.
 */
async function peakHeapMb(percent: number): Promise<number> {
  const script = `
    const { boundHeapGrowth } = await import(${JSON.stringify(serviceModule('platform/memory/heap.ts'))});
    boundHeapGrowth(${percent});
    const live = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'live-' + i }));
    const ring = new Array(400).fill(null);
    let peak = 0;
    for (let round = 0; round < 20000; round++) {
      ring[round % ring.length] = Array.from({ length: 500 }, (_, i) => ({ round, i, s: 'g-' + round + '-' + i }));
      if (round % 20 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    console.log(JSON.stringify({ peak, live: live.length }));`;
  const { stdout } = await run(process.execPath, [...serviceModuleArgs(), '--input-type=module', '-e', script]);
  return JSON.parse(stdout).peak / 1e6;
}

describe('boundHeapGrowth', () => {
  it('keeps a churning heap near what is alive, where V8 alone lets it grow twice as far', async () => {
    const [own, bounded] = await Promise.all([peakHeapMb(0), peakHeapMb(50)]);
    assert.ok(own > 100, `V8's own rule grows this heap past 100 MB (${own.toFixed(0)} MB)`);
    assert.ok(bounded < own * 0.7, `bounded at 50 %: ${bounded.toFixed(0)} MB against ${own.toFixed(0)} MB`);
  });
});

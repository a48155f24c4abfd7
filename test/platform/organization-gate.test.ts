import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiError } from '../../src/platform/errors.ts';
import { OrganizationGate } from '../../src/platform/gate.ts';

/** A task that ends when told to, noting when it started. */
function task(log: string[], name: string) {
  let end!: () => void;
  const done = new Promise<void>((r) => (end = r));
  return { run: async () => (log.push(name), done), end: () => end() };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('a gate shared by organizations', () => {
  it("gives a freed slot to the other organization before the rest of one organization's queue", async () => {
    const gate = new OrganizationGate(1, 10, 6, 'tasks');
    const started: string[] = [];
    const tasks = ['a1', 'a2', 'a3', 'a4', 'b1'].map((n) => task(started, n));
    const running = tasks.map((x, i) => gate.run(i < 4 ? 'A' : 'B', x.run));
    await tick();
    assert.deepEqual(started, ['a1']);
    tasks[0].end();
    await tick();
    await tick();
    assert.deepEqual(started, ['a1', 'a2'], 'A was first in turn');
    tasks[1].end();
    await tick();
    await tick();
    assert.deepEqual(started, ['a1', 'a2', 'b1'], "B's task goes before A's a3 and a4");
    for (const x of tasks) x.end();
    await Promise.all(running);
    assert.equal(gate.holding('A'), 0);
  });

  it('refuses an organization past its places with 429, and a queue full of several with 503', async () => {
    const gate = new OrganizationGate(1, 2, 2, 'tasks');
    const log: string[] = [];
    const held = [task(log, 'a1'), task(log, 'a2')];
    const running = held.map((x) => gate.run('A', x.run));
    await assert.rejects(
      gate.run('A', async () => {}),
      (e: ApiError) => e.code === 'rate_limited',
    );
    const b = task(log, 'b1');
    const bRun = gate.run('B', b.run);
    await assert.rejects(
      gate.run('C', async () => {}),
      (e: ApiError) => e.code === 'service_busy',
    );
    for (const x of [...held, b]) x.end();
    await Promise.all([...running, bRun]);
    assert.deepEqual(log.sort(), ['a1', 'a2', 'b1']);
    assert.equal(await gate.run('A', async () => 'free again'), 'free again');
  });
});

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp } from '../support/app.ts';
import { createRender, seeded, uploadSolid } from './helpers.ts';

const threads = () =>
  new Map(
    readdirSync('/proc/self/task').map((tid) => [tid, readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()]),
  );

describe('render work runs below the event loop', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("lowers the compositor's own worker threads, not only libvips' ones", async () => {
    const known = threads();
    const res = await createRender(t, seeded(t).cStudioIp15, await uploadSolid(t, { r: 20, g: 160, b: 90 }));
    assert.equal(res.statusCode, 200, res.body);
    await t.s.worker.drain();
    const rendered = await t.s.rendering.findRender(t.seed.organizations[0].reference, res.data.render.reference);
    assert.equal(rendered?.status, 'completed');
    // Threads the render started that are not libvips': the compositor's pool (and nothing else here).
    const started = [...threads()].filter(([tid, name]) => !known.has(tid) && name !== 'libvips worker');
    assert.ok(started.length > 0, 'the render started its compositor threads');
    for (const [tid, name] of started) assert.ok(getPriority(Number(tid)) >= 10, `thread ${tid} (${name}) at nice 10`);
    assert.ok(getPriority(process.pid) < 10, 'the event loop keeps its priority');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createRender, seeded, uploadSolid } from './helpers.ts';

describe('render list', () => {
  let t: TestApp;
  let d: ReturnType<typeof seeded>;
  before(async () => {
    t = await createTestApp();
    d = seeded(t);
  });
  after(() => t.close());

  it('lists the organization’s renders newest first, by status, paginated', async () => {
    const refs: string[] = [];
    for (const color of [
      { r: 10, g: 20, b: 30 },
      { r: 40, g: 50, b: 60 },
      { r: 70, g: 80, b: 90 },
    ]) {
      const created = await createRender(t, d.cStudioIp15, await uploadSolid(t, color));
      assert.equal(created.statusCode, 200, created.body);
      refs.push(created.data.render.reference);
    }
    const all = await call(t, 'GET', '/v2/renders');
    assert.equal(all.statusCode, 200);
    assert.deepEqual(
      all.data.renders.map((r: any) => r.reference),
      [...refs].reverse(),
    );
    assert.equal(all.data.nextCursor, null);

    const first = await call(t, 'GET', '/v2/renders?limit=2');
    assert.equal(first.data.renders.length, 2);
    const second = await call(t, 'GET', `/v2/renders?limit=2&cursor=${encodeURIComponent(first.data.nextCursor)}`);
    assert.deepEqual(
      second.data.renders.map((r: any) => r.reference),
      [refs[0]],
    );

    await t.s.worker.drain();
    const completed = await call(t, 'GET', '/v2/renders?status=completed');
    assert.equal(completed.data.renders.length, 3);
    assert.ok(completed.data.renders.every((r: any) => r.status === 'completed' && r.thumbhash));
    assert.equal((await call(t, 'GET', '/v2/renders?status=pending')).data.renders.length, 0);
    const badCursor = await call(
      t,
      'GET',
      `/v2/renders?status=pending&cursor=${encodeURIComponent(first.data.nextCursor)}`,
    );
    assert.equal(badCursor.statusCode, 400, 'a cursor belongs to one status filter');
    assert.equal(badCursor.data.code, 'invalid_cursor');
    assert.equal((await call(t, 'GET', '/v2/renders?status=done')).statusCode, 400);
  });

  it('shows another organization none of them', async () => {
    const res = await call(t, 'GET', '/v2/renders', { key: t.otherKey });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.data.renders, []);
  });
});

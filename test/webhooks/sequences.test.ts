import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRender, seeded, uploadSolid } from '../rendering/helpers.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';

describe('every event about an object carries its sequence', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const events = async () => (await call(t, 'GET', '/v2/events?limit=100')).data.events as any[];

  it('claim events: created 1, updated 2', async () => {
    const res = await call(t, 'POST', '/v2/test-helpers/events/trigger', {
      body: { event: { type: 'claim.updated' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    const claim = res.data.trigger.objects.claim;
    const about = (await events()).filter((e) => e.data.claim?.reference === claim);
    assert.deepEqual(
      about.map((e) => [e.type, e.data.sequence]).sort((a, b) => a[1] - b[1]),
      [
        ['claim.created', 1],
        ['claim.updated', 2],
      ],
    );
  });

  it('render events: the render finished is its first', async () => {
    const image = await uploadSolid(t, { r: 10, g: 120, b: 200 });
    const created = await createRender(t, seeded(t).cStudioIp15, image);
    assert.equal(created.statusCode, 200, created.body);
    const ref = created.data.render.reference;
    await t.s.worker.drain();
    const about = (await events()).filter((e) => e.data.render?.reference === ref);
    assert.deepEqual(
      about.map((e) => [e.type, e.data.sequence]),
      [['render.completed', 1]],
    );
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { amsterdamIso, tokenWeek } from '../../src/modules/rendering/week.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createRender, seeded, uploadSolid } from './helpers.ts';

describe('rendertoken week (Europe/Amsterdam)', () => {
  const cases: Array<[string, string, string]> = [
    // now (UTC), week start, next reset — around the DST changes of 2026 and 2027
    ['2026-03-28T12:00:00Z', '2026-03-23T00:00:00+01:00', '2026-03-30T00:00:00+02:00'],
    ['2026-03-29T12:00:00Z', '2026-03-23T00:00:00+01:00', '2026-03-30T00:00:00+02:00'],
    ['2026-03-29T21:59:59Z', '2026-03-23T00:00:00+01:00', '2026-03-30T00:00:00+02:00'],
    ['2026-03-29T22:00:00Z', '2026-03-30T00:00:00+02:00', '2026-04-06T00:00:00+02:00'],
    ['2026-10-25T00:30:00Z', '2026-10-19T00:00:00+02:00', '2026-10-26T00:00:00+01:00'],
    ['2026-10-25T22:59:59Z', '2026-10-19T00:00:00+02:00', '2026-10-26T00:00:00+01:00'],
    ['2026-10-25T23:00:00Z', '2026-10-26T00:00:00+01:00', '2026-11-02T00:00:00+01:00'],
    ['2027-03-28T12:00:00Z', '2027-03-22T00:00:00+01:00', '2027-03-29T00:00:00+02:00'],
    ['2027-03-28T22:00:00Z', '2027-03-29T00:00:00+02:00', '2027-04-05T00:00:00+02:00'],
    ['2027-10-31T12:00:00Z', '2027-10-25T00:00:00+02:00', '2027-11-01T00:00:00+01:00'],
    ['2027-10-31T23:00:00Z', '2027-11-01T00:00:00+01:00', '2027-11-08T00:00:00+01:00'],
    ['2026-11-22T10:00:00Z', '2026-11-16T00:00:00+01:00', '2026-11-23T00:00:00+01:00'],
    ['2026-07-06T00:00:00+02:00', '2026-07-06T00:00:00+02:00', '2026-07-13T00:00:00+02:00'],
  ];
  for (const [now, starts, resets] of cases) {
    it(`at ${now} the week runs from ${starts} to ${resets}`, () => {
      const w = tokenWeek(new Date(now));
      assert.equal(amsterdamIso(w.starts), starts);
      assert.equal(amsterdamIso(w.resets), resets);
      assert.equal(w.resets.getTime(), Date.parse(resets));
      assert.equal(w.week, starts.slice(0, 10));
    });
  }
  it('weeks around a change are 167 and 169 hours long', () => {
    const spring = tokenWeek(new Date('2026-03-25T12:00:00Z'));
    assert.equal((spring.resets.getTime() - spring.starts.getTime()) / 3600_000, 167);
    const autumn = tokenWeek(new Date('2026-10-21T12:00:00Z'));
    assert.equal((autumn.resets.getTime() - autumn.starts.getTime()) / 3600_000, 169);
  });
});

describe('rendertokens', () => {
  let t: TestApp;
  let d: ReturnType<typeof seeded>;
  const tokens = async (key = t.key) => (await call(t, 'GET', '/v2/rendertokens', { key })).data.rendertokens;
  const setLimit = (orgIndex: number, limit: number) =>
    operator(t, 'PUT', `/organizations/${t.seed.organizations[orgIndex].reference}/rendertoken-limit`, { limit });
  before(async () => {
    t = await createTestApp();
    d = seeded(t);
  });
  after(() => t.close());

  it('shows used, limit, remaining and the next reset with the Amsterdam offset', async () => {
    t.clock.set('2026-11-18T10:00:00Z');
    const res = await call(t, 'GET', '/v2/rendertokens');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.data.rendertokens, {
      used: 0,
      limit: 1000,
      remaining: 1000,
      resets: '2026-11-23T00:00:00+01:00',
    });
    assert.equal((await tokens(t.otherKey)).limit, 500);
  });

  it('refuses a render the remaining tokens do not cover: 429 with Retry-After to the reset, nothing deducted', async () => {
    // Sunday 29 March 2026, 12:00 UTC = 14:00 CEST; the reset is 2026-03-30T00:00+02:00 = 22:00 UTC.
    t.clock.set('2026-03-29T12:00:00Z');
    assert.equal((await setLimit(0, 3)).statusCode, 200);
    const image = await uploadSolid(t, { r: 200, g: 0, b: 0 });
    const first = await createRender(t, d.cStudioIp15, image);
    assert.equal(first.statusCode, 200);
    assert.deepEqual(await tokens(), { used: 2, limit: 3, remaining: 1, resets: '2026-03-30T00:00:00+02:00' });

    for (const again of [await createRender(t, d.cStudioIp15, image), await createRender(t, d.cStudioS24, image)]) {
      assert.equal(again.statusCode, 429);
      assert.equal(again.data.code, 'rendertoken_limit_exceeded');
      assert.equal(again.headers['retry-after'], String(10 * 3600));
      assert.match(again.data.message, /2026-03-30T00:00:00\+02:00/);
    }
    assert.equal((await tokens()).used, 2);

    // One second before the reset: still the old week.
    t.clock.set('2026-03-29T21:59:59Z');
    const late = await createRender(t, d.cStudioIp15, image);
    assert.equal(late.statusCode, 429);
    assert.equal(late.headers['retry-after'], '1');

    // Monday 00:00 CEST: a new week, the same render is returned and paid for again.
    t.clock.set('2026-03-29T22:00:00Z');
    assert.deepEqual(await tokens(), { used: 0, limit: 3, remaining: 3, resets: '2026-04-06T00:00:00+02:00' });
    const next = await createRender(t, d.cStudioIp15, image);
    assert.equal(next.statusCode, 200);
    assert.equal(next.data.render.reference, first.data.render.reference);
    assert.equal((await tokens()).used, 2);
    // The other organization has its own budget.
    assert.equal((await tokens(t.otherKey)).used, 0);
  });

  it('uses the winter offset after the October change (2026 and 2027)', async () => {
    await setLimit(0, 2);
    const image = await uploadSolid(t, { r: 10, g: 200, b: 0 });
    t.clock.set('2026-10-25T12:00:00Z');
    assert.equal((await tokens()).resets, '2026-10-26T00:00:00+01:00');
    assert.equal((await createRender(t, d.cStudioIp15, image)).statusCode, 200);
    const refused = await createRender(t, d.cStudioIp15, image);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], String(11 * 3600));

    t.clock.set('2027-10-31T20:00:00Z');
    assert.equal((await tokens()).resets, '2027-11-01T00:00:00+01:00');
    t.clock.set('2027-03-28T00:30:00Z');
    assert.equal((await tokens()).resets, '2027-03-29T00:00:00+02:00');
    assert.equal((await tokens()).used, 0);
  });

  it('lets exactly one of two concurrent requests spend the last tokens', async () => {
    t.clock.set('2026-12-02T10:00:00Z');
    await setLimit(0, 3);
    const a = await uploadSolid(t, { r: 1, g: 100, b: 1 });
    const b = await uploadSolid(t, { r: 2, g: 100, b: 2 });
    const results = await Promise.all([createRender(t, d.cStudioIp15, a), createRender(t, d.cStudioS24, b)]);
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 429]);
    assert.equal((await tokens()).used, 2);
  });

  it('allows a render that uses the last token exactly, and a limit of 0 refuses everything', async () => {
    t.clock.set('2026-12-09T10:00:00Z');
    await setLimit(0, 5);
    const image = await uploadSolid(t, { r: 5, g: 5, b: 200 });
    assert.equal((await createRender(t, d.cMarbleIp15, image)).statusCode, 200);
    assert.deepEqual(await tokens(), { used: 5, limit: 5, remaining: 0, resets: '2026-12-14T00:00:00+01:00' });
    await setLimit(0, 0);
    t.clock.set('2026-12-16T10:00:00Z');
    assert.equal((await createRender(t, d.cStudioIp15, image)).statusCode, 429);
    assert.equal((await tokens()).remaining, 0);
    // A lowered limit below what is used shows remaining 0, never negative.
    t.clock.set('2026-12-09T11:00:00Z');
    assert.equal((await tokens()).remaining, 0);
  });
});

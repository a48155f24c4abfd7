import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addWorkingDays } from '../../src/modules/production/overview.ts';
import { floorRepo } from '../../src/modules/production/floor-repo.ts';
import { createOrder, orderBody, uploadImage } from '../orders/helpers.ts';
import { type TestApp, createTestApp } from '../support/app.ts';
import { OPERATOR_USER, signedIn, textOf } from '../dashboard/helpers.ts';
import { unitsInProduction } from './floor-helpers.ts';

const AMS = 'Europe/Amsterdam';

describe('working days of the production promise', () => {
  it('skips weekends in the factory’s zone', () => {
    // Friday 16:00 in Amsterdam (winter): one working day is Monday 16:00.
    assert.equal(addWorkingDays(new Date('2026-12-04T15:00:00Z'), 1, AMS).toISOString(), '2026-12-07T15:00:00.000Z');
    // Wednesday + 3: Monday.
    assert.equal(addWorkingDays(new Date('2026-12-02T09:00:00Z'), 3, AMS).toISOString(), '2026-12-07T09:00:00.000Z');
    // Saturday + 1: Monday (the weekend counts for nothing).
    assert.equal(addWorkingDays(new Date('2026-12-05T09:00:00Z'), 1, AMS).toISOString(), '2026-12-07T09:00:00.000Z');
    // Friday 23:30 UTC is Saturday 00:30 in Amsterdam: + 1 is Monday 00:30 there.
    assert.equal(addWorkingDays(new Date('2026-12-04T23:30:00Z'), 1, AMS).toISOString(), '2026-12-06T23:30:00.000Z');
  });
});

describe('production overview', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { PRODUCTION_PROMISE_DAYS: '2' } });
    t.clock.set('2026-12-07T09:00:00Z'); // a Monday
  });
  after(() => t.close());
  const overview = () => t.s.production.overview();
  const stage = (o: Awaited<ReturnType<typeof overview>>, s: string) => o.stages.find((x) => x.stage === s)!.orders;

  it('counts orders by stage, today’s cases, remakes by reason, and the orders past the promise', async () => {
    const before = await overview();
    assert.equal(before.promiseDays, 2);
    const pending = await createOrder(t, orderBody(t, await uploadImage(t)));
    const a = await unitsInProduction(t, 2); // printed, to QC
    const b = await unitsInProduction(t, 1, false); // in a batch
    const st = t.s.production.stations;
    await st.qc(a.units[0], 'pass');
    await st.qc(a.units[1], 'misprint');
    await st.pickingProblem(b.units[0], 'blank_damaged_at_picking');

    let o = await overview();
    assert.equal(stage(o, 'waiting') - stage(before, 'waiting'), 1);
    assert.equal(
      stage(o, 'remake') - stage(before, 'remake'),
      0,
      'a failed case with a blank is batched again at once',
    );
    assert.equal(
      stage(o, 'awaiting_batch') - stage(before, 'awaiting_batch'),
      1,
      'order a: its remade case waits for a batch',
    );
    assert.equal(stage(o, 'batched') - stage(before, 'batched'), 1);
    assert.deepEqual(
      [o.today.printed - before.today.printed, o.today.passed - before.today.passed, o.today.failed.misprint],
      [2, 1, 1],
    );
    assert.equal(o.today.pickingProblems, 1);
    const misprint = o.remakes.find((r) => r.reason === 'misprint')!;
    assert.deepEqual([misprint.count, misprint.of, misprint.rate], [1, 2, 0.5]);
    const picking = o.remakes.find((r) => r.reason === 'blank_damaged_at_picking')!;
    assert.equal(picking.count, 1);
    assert.equal(o.late.filter((l) => [pending, a.ref, b.ref].includes(l.reference)).length, 0, 'not late on day one');

    // Wednesday 09:00 is due (2 working days); Wednesday 10:00 they are late.
    t.clock.set('2026-12-09T08:59:00Z');
    o = await overview();
    assert.equal(o.late.filter((l) => [pending, a.ref, b.ref].includes(l.reference)).length, 0);
    t.clock.set('2026-12-09T10:00:00Z');
    o = await overview();
    const late = o.late.filter((l) => [pending, a.ref, b.ref].includes(l.reference));
    assert.deepEqual(late.map((l) => l.reference).sort(), [pending, a.ref, b.ref].sort());
    assert.equal(late.find((l) => l.reference === pending)!.due, '2026-12-09T09:00:00.000Z');
    assert.equal(o.today.printed, 0, 'today is Wednesday now');
    assert.equal(o.days.at(-3)!.printed - (before.days.at(-1)!.printed ?? 0), 2, 'Monday keeps its cases');

    // A packed and shipped order leaves the open stages and counts as shipped today.
    await floorRepo.move(t.db, [a.units[1]], 'awaiting_batch', 'batched', { at: t.clock.now() });
    await floorRepo.move(t.db, [a.units[1]], 'batched', 'printed', { at: t.clock.now() });
    await st.qc(a.units[1], 'pass');
    await st.pack(a.units[0]);
    await st.pack(a.units[1]);
    o = await overview();
    assert.equal(o.today.shipped, 1);
    assert.equal(o.today.packed, 2);
    assert.ok(!o.late.some((l) => l.reference === a.ref));
  });

  it('shows it in the console with charts and tables', async () => {
    const op = await signedIn(t, OPERATOR_USER, 'console');
    const page = await op.get('/console/production/overview');
    assert.equal(page.statusCode, 200);
    const text = textOf(page.body);
    for (const h of ['Today', 'Orders by stage', 'Late orders', 'Cases through QC per day', 'Remake rate by reason'])
      assert.ok(text.includes(h), h);
    assert.match(page.body, /<svg viewBox="0 0 600 180" role="img" aria-labelledby="qcd-t"/);
    assert.match(text, /Misprint 1 33\.3 % of 3 cases checked/);
    assert.match(text, /not shipped within 2 working day\(s\)/);
  });
});

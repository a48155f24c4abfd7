import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/platform/clock.ts';
import { factoryCalendar } from '../../src/modules/production/calendar.ts';
import { nextCutoff } from '../../src/modules/production/cutoffs.ts';
import { parseProductionHolidays } from '../../src/config.ts';
import { floorRepo } from '../../src/modules/production/floor-repo.ts';
import { createOrder, orderBody, uploadImage } from '../orders/helpers.ts';
import { type TestApp, createTestApp } from '../support/app.ts';
import { OPERATOR_USER, signedIn, textOf } from '../dashboard/helpers.ts';
import { unitsInProduction } from './floor-helpers.ts';

const AMS = 'Europe/Amsterdam';
const dutch = factoryCalendar(AMS, parseProductionHolidays(undefined));
const addWorkingDays = (from: Date, days: number, _zone: string) => dutch.addWorkingDays(from, days);

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

describe('the factory holiday calendar', () => {
  it('skips the Dutch public holidays by default, and not the bank or school holidays', () => {
    // Thursday 24 December 2026, 16:00: Friday is Christmas, Saturday Boxing Day; + 1 is Monday 28.
    assert.equal(addWorkingDays(new Date('2026-12-24T15:00:00Z'), 1, AMS).toISOString(), '2026-12-28T15:00:00.000Z');
    // Friday 24 April 2026 + 1: Monday 27 April is King's Day, so Tuesday.
    assert.equal(addWorkingDays(new Date('2026-04-24T10:00:00Z'), 1, AMS).toISOString(), '2026-04-28T10:00:00.000Z');
    assert.equal(dutch.closedFor('2026-04-27'), 'Koningsdag');
    assert.equal(dutch.closedFor('2026-05-14'), 'Hemelvaartsdag');
    assert.equal(dutch.closedFor('2026-12-31'), null, "New Year's Eve is a bank holiday only: the factory works");
    assert.equal(dutch.closedFor('2026-04-03'), null, 'Good Friday is no public holiday in the Netherlands');
    assert.equal(dutch.closedFor('2026-12-05'), 'Saturday');
  });

  it('takes regions and closed days of its own from PRODUCTION_HOLIDAYS, and refuses what it does not know', () => {
    const own = factoryCalendar(AMS, parseProductionHolidays('DE-BY, 2026-12-31'));
    assert.equal(own.closedFor('2026-01-06'), 'Heilige Drei Könige', 'a Bavarian holiday');
    assert.equal(own.closedFor('2026-04-27'), null, 'no Dutch holiday');
    assert.equal(own.closedFor('2026-12-31'), 'closed');
    const none = factoryCalendar(AMS, parseProductionHolidays('none'));
    assert.equal(none.addWorkingDays(new Date('2026-12-24T15:00:00Z'), 1).toISOString(), '2026-12-25T15:00:00.000Z');
    assert.throws(() => parseProductionHolidays('XX'), /"XX" is neither a country/);
    assert.throws(() => parseProductionHolidays('DE-QQ'), /DE has no state or province QQ/);
    assert.throws(() => parseProductionHolidays('2026-02-30'), /2026-02-30 is no calendar date/);
  });

  it('puts cut-offs on working days only', () => {
    const at = (iso: string) => nextCutoff(new Date(iso), ['10:00', '15:00'], AMS, dutch.isWorkingDay).toISOString();
    // Thursday 24 December after 15:00: Christmas, Boxing Day and the weekend are closed.
    assert.equal(at('2026-12-24T14:30:00Z'), '2026-12-28T09:00:00.000Z');
    // Saturday morning: Monday 10:00.
    assert.equal(at('2026-12-05T08:00:00Z'), '2026-12-07T09:00:00.000Z');
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

describe('holidays on the floor (test clock)', () => {
  let t: TestApp;
  before(async () => {
    // Thursday 24 December 2026, 09:00 in Amsterdam.
    t = await createTestApp({
      env: { PRODUCTION_PROMISE_DAYS: '1', PRODUCTION_RELEASE: '10:00,15:00' },
      clock: new ManualClock('2026-12-24T08:00:00Z'),
    });
    await t.s.production.release.schedule();
  });
  after(() => t.close());

  it('an order placed before Christmas is due and released after the closed days', async () => {
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    t.clock.set('2026-12-24T14:30:00Z');
    await t.s.worker.drain();
    // Placed before the 10:00 cut-off: in production since then; the next cut-off is Monday.
    const q = await t.s.production.queue();
    assert.equal(q.release.nextCutoff, '2026-12-28T09:00:00.000Z');
    const lateOf = async () => (await t.s.production.overview()).late.find((l) => l.reference === ref);
    t.clock.set('2026-12-26T12:00:00Z');
    assert.equal(await lateOf(), undefined, 'Christmas and Boxing Day are no working days');
    t.clock.set('2026-12-28T08:30:00Z');
    const late = await lateOf();
    assert.equal(late?.due, '2026-12-28T08:00:00.000Z', 'one working day after Thursday 09:00 is Monday 09:00');
  });

  it('an order placed on Christmas Day waits for the Monday cut-off', async () => {
    t.clock.set('2026-12-25T10:00:00Z');
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    t.clock.set('2026-12-27T20:00:00Z');
    await t.s.worker.drain();
    assert.equal(
      (await t.s.production.queue()).waiting.some((o) => o.reference === ref),
      true,
    );
    t.clock.set('2026-12-28T09:00:30Z');
    await t.s.worker.drain();
    assert.equal(
      (await t.s.production.queue()).inProduction.some((o) => o.reference === ref),
      true,
    );
  });
});

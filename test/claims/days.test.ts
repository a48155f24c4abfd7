import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addBusinessDays,
  amsterdamDate,
  amsterdamMidnight,
  packageMissingOpens,
  warrantyEnds,
} from '../../src/modules/claims/days.ts';

describe('claim day counting', () => {
  it('takes the ship day in Amsterdam time', () => {
    assert.equal(amsterdamDate(new Date('2026-06-01T21:59:59Z')).toISOString().slice(0, 10), '2026-06-01');
    assert.equal(amsterdamDate(new Date('2026-06-01T22:00:00Z')).toISOString().slice(0, 10), '2026-06-02');
    assert.equal(amsterdamDate(new Date('2026-01-10T23:00:00Z')).toISOString().slice(0, 10), '2026-01-11');
  });

  it('finds 00:00 Amsterdam in summer and winter', () => {
    assert.equal(amsterdamMidnight(new Date('2026-06-03T00:00:00Z')).toISOString(), '2026-06-02T22:00:00.000Z');
    assert.equal(amsterdamMidnight(new Date('2026-12-03T00:00:00Z')).toISOString(), '2026-12-02T23:00:00.000Z');
    // the day after the spring change (2026-03-29)
    assert.equal(amsterdamMidnight(new Date('2026-03-30T00:00:00Z')).toISOString(), '2026-03-29T22:00:00.000Z');
    assert.equal(amsterdamMidnight(new Date('2026-03-29T00:00:00Z')).toISOString(), '2026-03-28T23:00:00.000Z');
  });

  it('skips weekends when counting business days', () => {
    const friday = new Date('2026-06-05T00:00:00Z');
    assert.equal(addBusinessDays(friday, 1).toISOString().slice(0, 10), '2026-06-08');
    assert.equal(addBusinessDays(friday, 10).toISOString().slice(0, 10), '2026-06-19');
    assert.equal(addBusinessDays(new Date('2026-06-06T00:00:00Z'), 2).toISOString().slice(0, 10), '2026-06-09');
  });

  it('opens package-missing filing the day after the window, never before two calendar days', () => {
    // Monday, window 2 business days: the window ends Wednesday, filing opens Thursday.
    assert.deepEqual(packageMissingOpens(new Date('2026-06-01T10:00:00Z'), 2), {
      at: new Date('2026-06-03T22:00:00Z'),
      date: '2026-06-04',
    });
    // Monday, window 1 business day: the window ends Tuesday; Wednesday is both rules.
    assert.equal(packageMissingOpens(new Date('2026-06-01T10:00:00Z'), 1).date, '2026-06-03');
    // Sunday, window 2: the window ends Tuesday (its last delivery day), so Wednesday, not Tuesday.
    assert.equal(packageMissingOpens(new Date('2026-05-31T10:00:00Z'), 2).date, '2026-06-03');
    // Saturday, window 0 (same-day promise): two calendar days win.
    assert.equal(packageMissingOpens(new Date('2026-06-06T10:00:00Z'), 0).date, '2026-06-08');
    // Friday, window 10 business days: the window ends Friday two weeks later; filing opens Saturday.
    assert.equal(packageMissingOpens(new Date('2026-06-05T10:00:00Z'), 10).date, '2026-06-20');
    // Shipped late Sunday evening UTC is Monday in Amsterdam.
    assert.equal(packageMissingOpens(new Date('2026-06-07T22:30:00Z'), 2).date, '2026-06-11');
  });

  it('counts the warranty in exact instants', () => {
    assert.equal(warrantyEnds(new Date('2026-06-01T10:00:00Z')).toISOString(), '2026-09-09T10:00:00.000Z');
  });
});

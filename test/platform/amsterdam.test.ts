import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  amsterdamDay,
  amsterdamIso,
  amsterdamMidnight,
  amsterdamOffsetMinutes,
  amsterdamTime,
} from '../../src/platform/amsterdam.ts';

describe('Amsterdam time', () => {
  it('reads an instant as Amsterdam’s wall clock, in winter and in summer', () => {
    assert.deepEqual(amsterdamTime(new Date('2026-01-15T12:34:56Z')), {
      year: 2026,
      month: 1,
      day: 15,
      hour: 13,
      minute: 34,
      second: 56,
    });
    assert.equal(amsterdamTime(new Date('2026-07-15T12:34:56Z')).hour, 14);
    assert.equal(amsterdamOffsetMinutes(new Date('2026-01-15T12:00:00Z')), 60);
    assert.equal(amsterdamOffsetMinutes(new Date('2026-07-15T12:00:00Z')), 120);
  });

  it('puts a late evening in UTC on the next Amsterdam day', () => {
    assert.equal(amsterdamDay(new Date('2026-10-31T23:30:00Z')), '2026-11-01');
    assert.equal(amsterdamDay(new Date('2026-06-30T21:59:59Z')), '2026-06-30');
    assert.equal(amsterdamDay(new Date('2026-06-30T22:00:00Z')), '2026-07-01');
  });

  it('finds midnight on either side of the changes of summer time', () => {
    // Summer time starts 29 March 2026 and ends 25 October 2026.
    assert.equal(amsterdamMidnight(2026, 3, 29).toISOString(), '2026-03-28T23:00:00.000Z');
    assert.equal(amsterdamMidnight(2026, 3, 30).toISOString(), '2026-03-29T22:00:00.000Z');
    assert.equal(amsterdamMidnight(2026, 10, 25).toISOString(), '2026-10-24T22:00:00.000Z');
    assert.equal(amsterdamMidnight(2026, 10, 26).toISOString(), '2026-10-25T23:00:00.000Z');
    assert.equal(amsterdamMidnight(2027, 1, 1).toISOString(), '2026-12-31T23:00:00.000Z');
  });

  it('writes ISO 8601 with the offset of the day', () => {
    assert.equal(amsterdamIso(new Date('2026-03-29T22:00:00Z')), '2026-03-30T00:00:00+02:00');
    assert.equal(amsterdamIso(new Date('2026-12-31T23:00:00Z')), '2027-01-01T00:00:00+01:00');
  });
});

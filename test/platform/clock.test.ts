import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, ScopedClock, realNow, realNowMs, systemClock } from '../../src/platform/clock.ts';
import { runInScope } from '../../src/platform/context.ts';

describe('clocks', () => {
  it('the wall-clock time in ms of a test clock is its base clock, whatever organization is in scope', async () => {
    const base = new ManualClock('2026-03-01T10:00:00Z');
    const frozen = new Date('2020-01-01T00:00:00Z');
    const clock = new ScopedClock(base, (org) => (org === 'Organization_frozen' ? frozen : null));
    const inScope = runInScope(
      () => ({ now: clock.now(), ms: realNowMs(clock), real: realNow(clock) }),
      'Organization_frozen',
    );
    assert.equal(inScope.now.toISOString(), frozen.toISOString(), 'the organization sees its own time');
    assert.equal(inScope.ms, base.now().getTime());
    assert.equal(inScope.real.getTime(), base.now().getTime());
    base.advance(60_000);
    assert.equal(realNowMs(clock), Date.parse('2026-03-01T10:01:00Z'));
  });

  it('the system clock and one on top of it answer in ms with the time now', () => {
    const before = Date.now();
    const scoped = new ScopedClock(systemClock, () => null);
    const a = realNowMs(systemClock);
    const b = realNowMs(scoped);
    assert.ok(a >= before && b >= a && b <= Date.now());
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentKeys } from '../../src/platform/recent-keys.ts';

describe('RecentKeys: the last keys seen, bounded', () => {
  it('sees each key once while it is remembered', () => {
    const keys = new RecentKeys(3);
    assert.deepEqual(
      ['a', 'b', 'a', 'c', 'b'].map((k) => keys.firstSight(k)),
      [true, true, false, true, false],
    );
    assert.equal(keys.size, 3);
  });

  it('drops the least recently seen key past its bound, so a new key is always seen', () => {
    const keys = new RecentKeys(10_000);
    for (let i = 0; i < 10_000; i++) assert.ok(keys.firstSight(`old-${i}`));
    assert.ok(keys.firstSight('new'), 'a key after 10,000 others is still seen');
    assert.equal(keys.size, 10_000, 'the bound holds');
    assert.ok(keys.firstSight('old-0'), 'the oldest was dropped for it');
    assert.ok(!keys.firstSight('new'), 'the new one is remembered');
  });

  it('keeps a key that comes again as fresh', () => {
    const keys = new RecentKeys(2);
    keys.firstSight('a');
    keys.firstSight('b');
    assert.ok(!keys.firstSight('a'), 'seen again: now the most recent');
    assert.ok(keys.firstSight('c'), 'c pushes out b, the least recent');
    assert.ok(!keys.firstSight('a'));
    assert.ok(keys.firstSight('b'));
  });

  it('needs room for one key', () => {
    assert.throws(() => new RecentKeys(0));
  });
});

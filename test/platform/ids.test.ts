import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isReference, newReference, randomId, uuidV7, uuidV7Time } from '../../src/platform/ids.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids (UUID version 7)', () => {
  it('carry their millisecond, from the first to the last a UUID v7 can hold, in canonical form', () => {
    for (const at of [0, 1, 15, 16, 2 ** 32 - 1, 2 ** 32, Date.UTC(2026, 10, 28, 13, 2, 9, 123), 2 ** 48 - 1]) {
      const id = uuidV7(at);
      assert.match(id, V7, `${at}`);
      assert.equal(uuidV7Time(id), at, id);
    }
    assert.ok(uuidV7(0).startsWith('00000000-0000-7'));
    assert.ok(uuidV7(2 ** 48 - 1).startsWith('ffffffff-ffff-7'));
  });

  it('differ in their 74 random bits, spread over every digit and all four variants', () => {
    const at = Date.now();
    const ids = Array.from({ length: 20_000 }, () => uuidV7(at));
    assert.equal(new Set(ids).size, ids.length, 'no two alike within one millisecond');
    // Past the 4 KB of entropy drawn at a time (~400 ids), the ids go on differing.
    assert.equal(new Set(ids.map((id) => id.slice(24))).size, ids.length);
    assert.deepEqual(new Set(ids.map((id) => id[19])), new Set(['8', '9', 'a', 'b']));
    for (const at of [15, 20, 35]) {
      const counts = new Map<string, number>();
      for (const id of ids) counts.set(id[at], (counts.get(id[at]) ?? 0) + 1);
      assert.equal(counts.size, 16, `position ${at} takes every hex digit`);
      for (const n of counts.values()) assert.ok(n > 1000 && n < 1500, `position ${at}: ${n} of 20,000 (~1,250)`);
    }
  });
});

describe('references and random ids', () => {
  it('never repeat, across the entropy pool they share with request ids, and spread over the alphabet', () => {
    // Interleaved with request ids and of several lengths, so that draws straddle each refill of the pool.
    const ids = Array.from({ length: 12_000 }, (_, i) => {
      if (i % 3 === 0) uuidV7();
      return randomId(i % 2 ? 26 : 40);
    });
    assert.equal(new Set(ids).size, ids.length);
    const refs = Array.from({ length: 3000 }, () => newReference('Order'));
    assert.ok(refs.every((r) => isReference('Order', r)));
    assert.equal(new Set(refs).size, refs.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id) counts.set(c, (counts.get(c) ?? 0) + 1);
    assert.equal(counts.size, 32, 'every character of the alphabet');
    const each = [...counts.values()];
    const mean = each.reduce((a, b) => a + b, 0) / each.length;
    for (const n of each) assert.ok(Math.abs(n - mean) < mean * 0.05, `${n} against ~${Math.round(mean)}`);
    assert.equal(randomId(300).length, 300);
  });
});

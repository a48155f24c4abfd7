import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { protocol } from '@electric-sql/pglite';
import { boundMessage, type WireValue } from '../../src/platform/db/pglite-protocol.ts';

/** What the worker sent before: PGlite's serializers, joined. */
function pglites(statement: string, values: WireValue[]): Buffer {
  const { serialize } = protocol;
  return Buffer.concat([
    serialize.bind({ statement, values }),
    serialize.describe({ type: 'P' }),
    serialize.execute({}),
    serialize.sync(),
  ]);
}

// Text PGlite measures right (its UTF-8 length skips a character before a lone low surrogate; HTTP
// and PostgreSQL never hand either side one).
const texts = [
  '',
  'a',
  'plain text',
  'é',
  '日本語',
  '😀 and 𝄞',
  '\u0001\u007f',
  '"quoted" \\ back',
  'x'.repeat(70_000),
];

function randomValue(seed: number): WireValue {
  const kind = seed % 5;
  if (kind === 0) return null;
  if (kind === 1) return texts[seed % texts.length];
  if (kind === 2) return new Uint8Array(randomBytes(seed % 300));
  // A view into a larger buffer: only its own bytes go.
  if (kind === 3) return Buffer.from(randomBytes(64)).subarray(3, 3 + (seed % 50));
  return String(seed * 7919);
}

describe('the PGlite worker’s protocol message', () => {
  it('is byte for byte what PGlite’s serializers make, for any mix of values', () => {
    const cases: Array<[string, WireValue[]]> = [
      ['s1', []],
      ['s22', [null]],
      ['s3', ['']],
      ['s4', [new Uint8Array(0)]],
      ['s5', texts],
      ['s6', [new Uint8Array(randomBytes(112_000)), 'Organization_x', null]],
      ['sé', ['x']],
    ];
    for (let seed = 1; seed < 200; seed++)
      cases.push([`s${seed}`, Array.from({ length: seed % 12 }, (_, i) => randomValue(seed * 13 + i))]);
    for (const [name, values] of cases)
      assert.deepEqual(
        Buffer.from(boundMessage(name, values)),
        pglites(name, values),
        `${name}: ${values.length} values`,
      );
  });

  it('carries a request-log write of eight batches in one copy of its bytes', () => {
    const batches = Buffer.from(randomBytes(8 * 14 * 999));
    const values: WireValue[] = ['{a,b}', '{2026-12-02}', batches, '{1,2}', '{3,4}'];
    const out = boundMessage('s9', values);
    assert.deepEqual(Buffer.from(out), pglites('s9', values));
    assert.equal(out.byteLength, pglites('s9', values).byteLength, 'no spare room');
  });

  it('refuses more parameters than the protocol can count', () => {
    assert.throws(() => boundMessage('s1', new Array(65_536).fill(null)), /at most 65535 parameters/);
  });
});

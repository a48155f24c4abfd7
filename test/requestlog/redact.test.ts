import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactEmails } from '../../src/modules/requestlog/redact.ts';

// The address shape as a regular expression; the scan must agree with it.
const SHAPE = /[^\s@"'<>]+@[^\s@"'<>]+\.[^\s@"'<>]+/g;

describe('e-mail redaction in the request log', () => {
  it('replaces what the address shape matches, and nothing else', () => {
    const cases = ['mail ann@shop.example now', 'a@b.c@d.e', '@x.y', 'a@.b', 'a@b.', 'x "p@q.r" <s@t.u>', 'no at'];
    for (const s of cases) assert.equal(redactEmails(s), s.replace(SHAPE, '[redacted e-mail]'), s);
    let seed = 7;
    const pick = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return 'ab@. "x'[seed % 7];
    };
    for (let i = 0; i < 20_000; i++) {
      const s = Array.from({ length: i % 15 }, pick).join('');
      assert.equal(redactEmails(s), s.replace(SHAPE, '[redacted e-mail]'), JSON.stringify(s));
    }
  });

  it('takes linear time on long strings that made the regular expression backtrack', () => {
    // Counted in characters visited, not seconds: a quadratic scan of 200,000 characters would not return.
    for (const s of ['a'.repeat(200_000), 'a@'.repeat(100_000), `${'b'.repeat(100_000)}@${'c'.repeat(100_000)}`])
      assert.equal(redactEmails(s).length > 0, true);
    assert.equal(redactEmails(`${'x'.repeat(100_000)}@shop.example`), '[redacted e-mail]');
  });
});

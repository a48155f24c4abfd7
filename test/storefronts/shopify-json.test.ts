import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseKeepingLargeIntegers } from '../../src/modules/storefronts/shopify/json.ts';

describe('parsing Shopify payloads with ids past 2^53', () => {
  it('keeps an integer a double cannot hold as its exact decimal string', () => {
    const v = parseKeepingLargeIntegers(
      '{"id": 9007199254740993, "orders_to_redact": [820982911946154508, 42]}',
    ) as any;
    assert.equal(v.id, '9007199254740993');
    assert.deepEqual(v.orders_to_redact, ['820982911946154508', 42]);
  });

  it('leaves safe integers, decimals, exponents, negatives and strings as JSON.parse does', () => {
    const text =
      '{"a": 9007199254740991, "b": -12, "c": 12345678901234567.5, "d": 1e21, "e": "id 9007199254740993", "f": "q\\"9007199254740993", "g": [true, null]}';
    assert.deepEqual(parseKeepingLargeIntegers(text), JSON.parse(text));
  });

  it('refuses what is not JSON, as JSON.parse does', () => {
    assert.throws(() => parseKeepingLargeIntegers('{"id": 90071992547409930,'), SyntaxError);
  });
});

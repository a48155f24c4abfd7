/**
 * Shopify's REST-shaped webhook payloads carry ids as JSON numbers (`"id": 820982911946154508`,
 * `"orders_to_redact": [...]`); past 2^53 `JSON.parse` rounds them to another id. This parse keeps
 * every integer literal a double cannot hold exactly as its decimal string, and everything else as
 * `JSON.parse` does. Only the text outside strings is looked at.
 */
const LONG_DIGITS = /\d{16,}/;
const LONG_INTEGER = /-?\d{16,}/g;

/** A character that makes digits next to it part of a fraction, an exponent or a longer literal. */
const joins = (c: number) => (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;

export function parseKeepingLargeIntegers(text: string): unknown {
  return JSON.parse(quoteLargeIntegers(text));
}

/**
 * The text with every integer literal a double cannot hold exactly turned into its decimal string:
 * what `parseKeepingLargeIntegers` parses, and JSON that any reader parses without losing an id.
 */
export function quoteLargeIntegers(text: string): string {
  if (!LONG_DIGITS.test(text)) return text;
  let out = '';
  let from = 0;
  // Runs of 16 digits or more are found by the regex engine and quotes by indexOf: a payload of
  // 10 kB is not walked character by character in JavaScript. `inString` holds at `scanned`.
  let scanned = 0;
  let inString = false;
  for (const m of text.matchAll(LONG_INTEGER)) {
    const at = m.index;
    for (let q = text.indexOf('"', scanned); q !== -1 && q < at; q = text.indexOf('"', scanned)) {
      scanned = q + 1;
      if (inString) {
        let slashes = 0;
        while (text.charCodeAt(q - 1 - slashes) === 92 /* \ */) slashes++;
        if (slashes % 2 === 1) continue;
      }
      inString = !inString;
    }
    const token = m[0];
    const end = at + token.length;
    if (inString || joins(text.charCodeAt(at - 1)) || joins(text.charCodeAt(end))) continue;
    if (Number.isSafeInteger(Number(token))) continue;
    out += `${text.slice(from, at)}"${token}"`;
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Shopify's REST-shaped webhook payloads carry ids as JSON numbers (`"id": 820982911946154508`,
 * `"orders_to_redact": [...]`); past 2^53 `JSON.parse` rounds them to another id. This parse keeps
 * every integer literal a double cannot hold exactly as its decimal string, and everything else as
 * `JSON.parse` does. Only the text outside strings is looked at.
 */
const LONG_DIGITS = /\d{16,}/;

export function parseKeepingLargeIntegers(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  let out = '';
  let from = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string, escapes included.
      i++;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 /* \ */ ? 2 : 1;
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < n && /[0-9.eE+-]/.test(text[j])) j++;
      const token = text.slice(i, j);
      if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(from, i)}"${token}"`;
        from = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  return JSON.parse(out + text.slice(from));
}

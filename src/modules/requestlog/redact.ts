import { redactSecrets } from '../../platform/redact.ts';

/**
 * What the request log may keep of a request or response body: secrets, addresses and e-mail
 * addresses are replaced before anything is stored, and large bodies are cut.
 */
const SECRET_KEY = /(secret|password|token|signature|authorization|api[-_]?key|^key$)/i;
const ADDRESS_KEY = /address$/i;
const PERSONAL_KEY =
  /^(e-?mail|phone|phonenumber|additionalinfo|firstname|lastname|streetname|street|housenumber|housenumberaddition|zipcode|postalcode|city|state|addressline\d?)$/i;
/** Characters an e-mail address is made of, for the scan in `redactEmails`. */
const EMAIL_CHAR = /[^\s@"'<>]/;
const MAX_STRING = 500;
const MAX_ITEMS = 50;
const MAX_DEPTH = 8;

export const REDACTED = '[redacted]';

/**
 * Replaces every `local@domain.tld` in one pass. A regular expression for the same shape
 * backtracks quadratically on a long string without `@`: one fuzzed body can cost seconds.
 */
export function redactEmails(s: string): string {
  let out = '';
  let copied = 0;
  let at = s.indexOf('@');
  while (at !== -1) {
    let start = at;
    while (start > copied && EMAIL_CHAR.test(s[start - 1])) start--;
    let end = at + 1;
    while (end < s.length && EMAIL_CHAR.test(s[end])) end++;
    let dot = at + 2;
    while (dot < end - 1 && s[dot] !== '.') dot++;
    if (start < at && dot < end - 1) {
      out += `${s.slice(copied, start)}[redacted e-mail]`;
      copied = end;
    }
    at = s.indexOf('@', Math.max(end, at + 1));
  }
  return copied === 0 ? s : out + s.slice(copied);
}

// jsonb refuses NUL and lone UTF-16 surrogates; one such string in a body (a request refused for
// holding it) would fail the write of its whole batch of requests.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const storable = (s: string) => s.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');

function text(s: string): string {
  const clean = redactSecrets(redactEmails(s));
  // After the cut, which may fall between the two halves of a surrogate pair.
  return storable(clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}… (cut)` : clean);
}

/** A copy of `value` with the fields of an address kept as names only (the country stays). */
function address(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value === null ? null : REDACTED;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = /^country/i.test(k) && typeof v === 'string' ? text(v) : v === null ? null : REDACTED;
  return out;
}

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return text(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[cut: nested too deep]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => redact(v, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`[cut: ${value.length - MAX_ITEMS} more]`);
    return items;
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const k = storable(key);
    if (SECRET_KEY.test(k)) out[k] = REDACTED;
    else if (ADDRESS_KEY.test(k)) out[k] = address(v);
    else if (PERSONAL_KEY.test(k) && v !== null && typeof v !== 'object') out[k] = REDACTED;
    else out[k] = redact(v, depth + 1);
  }
  return out;
}

/** A response payload as the log keeps it: parsed JSON redacted, anything else as cut text. */
export function redactPayload(payload: unknown): unknown {
  if (payload === undefined || payload === null) return null;
  if (typeof payload === 'string') {
    try {
      return redact(JSON.parse(payload));
    } catch {
      return text(payload);
    }
  }
  if (Buffer.isBuffer(payload)) return `[${payload.length} bytes]`;
  if (typeof payload === 'object' && typeof (payload as { pipe?: unknown }).pipe === 'function') return '[stream]';
  return redact(payload);
}

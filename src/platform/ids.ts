import { randomBytes, randomFillSync } from 'node:crypto';

/** Lowercase Crockford base32: no i, l, o, u. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** Random bytes drawn 4 KB at a time: one system call per ~150 references or ~400 request ids. */
const entropy = Buffer.allocUnsafeSlow(4096);
let entropyAt = entropy.length;
/** Where `n` fresh random bytes start in `entropy`; no byte is handed out twice. */
function draw(n: number): number {
  if (entropyAt + n > entropy.length) {
    randomFillSync(entropy);
    entropyAt = 0;
  }
  entropyAt += n;
  return entropyAt - n;
}

/** 26 characters of 5 bits each from a cryptographic source (130 bits). */
export function randomId(length = 26): string {
  if (length > 256) return randomIdOf(randomBytes(length), 0, length);
  return randomIdOf(entropy, draw(length), length);
}

function randomIdOf(bytes: Buffer, at: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[at + i] & 31];
  return out;
}

export function newReference(resource: string): string {
  return `${resource}_${randomId()}`;
}

/** True when `value` is a well-formed reference of the given resource type. */
export function isReference(resource: string, value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith(`${resource}_`)) return false;
  return BODY.test(value.slice(resource.length + 1));
}

export function referencePattern(resource: string): string {
  return `^${resource}_[0-9a-hjkmnp-tv-z]{26}$`;
}

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const HEX_DIGIT = Buffer.from('0123456789abcdef', 'latin1');
const idText = Buffer.allocUnsafeSlow(36);
/** Where the random hex digits go: after the version digit (14), in the variant's group and the last. */
const RANDOM_AT = [15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];

/**
 * A UUID version 7 (RFC 9562): the time in milliseconds, then random bits. Request ids carry their
 * time, so a support lookup knows where in the request log to look.
 *
 * Written as bytes and made into one flat string: every request gets one. Built from slices of a
 * `randomUUID()` and the time's `toString(16)` it took ~2 µs, and the template literal made a
 * string of pieces that every later read of it (the request log packs its 16 bytes) walked again.
 */
export function uuidV7(now = Date.now()): string {
  const at = draw(10);
  const out = idText;
  let t = Math.max(0, Math.floor(now));
  for (let i = 11; i >= 0; i--) {
    out[i < 8 ? i : i + 1] = HEX_DIGIT[t % 16];
    t = Math.floor(t / 16);
  }
  for (let k = 0; k < RANDOM_AT.length; k++) {
    const b = entropy[at + (k >> 1)];
    out[RANDOM_AT[k]] = HEX_DIGIT[(k & 1 ? b : b >> 4) & 15];
  }
  // The variant: 10 and two random bits.
  out[19] = HEX_DIGIT[8 | (entropy[at + 1] & 3)];
  out[8] = out[13] = out[18] = out[23] = 45;
  out[14] = 55;
  return out.toString('latin1', 0, 36);
}

/** The milliseconds a UUID version 7 was made at, or null for any other id. */
export function uuidV7Time(id: string): number | null {
  return V7.test(id) ? Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : null;
}

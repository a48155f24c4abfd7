import { randomBytes, randomUUID } from 'node:crypto';

/** Lowercase Crockford base32: no i, l, o, u. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** 26 characters of 5 bits each from a cryptographic source (130 bits). */
export function randomId(length = 26): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] & 31];
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

/**
 * A UUID version 7 (RFC 9562): the time in milliseconds, then random bits. Request ids carry their
 * time, so a support lookup knows where in the request log to look.
 */
export function uuidV7(now = Date.now()): string {
  // randomUUID draws from Node's pooled entropy (far cheaper per call than randomBytes(16)); its
  // version and variant nibbles are rewritten below.
  const r = randomUUID();
  const hex = now.toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${r.slice(15, 18)}-${r.slice(19)}`;
}

/** The milliseconds a UUID version 7 was made at, or null for any other id. */
export function uuidV7Time(id: string): number | null {
  return V7.test(id) ? Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : null;
}

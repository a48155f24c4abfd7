import { randomBytes } from 'node:crypto';

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

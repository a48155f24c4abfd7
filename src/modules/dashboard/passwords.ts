import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import { badRequest } from '../../platform/errors.ts';

export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 200;

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };
const EMAIL = /^[^\s@<>"']{1,64}@[^\s@<>"']+\.[^\s@<>"']+$/;

function scryptAsync(password: string, salt: Buffer, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      SCRYPT.keylen,
      { N: n, r: SCRYPT.r, p: SCRYPT.p, maxmem: 64 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/** `scrypt$N$salt$hash`, all base64url, so the cost can be raised later without a migration. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N);
  return `scrypt$${SCRYPT.N}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), Number(n));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;
/**
 * A hash to check an unknown e-mail's password against: the same work as for a known one, so timing
 * does not tell them apart. Made by the first sign-in that needs it (one scrypt, ~16 MB and ~50 ms
 * of CPU that a process with no dashboard sign-in never spends); that one sign-in takes a hash longer.
 */
export const dummyHash = (): Promise<string> => {
  dummy ??= hashPassword(randomBytes(12).toString('hex'));
  return dummy;
};

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw badRequest('Enter a valid e-mail address', 'invalid_email');
  return email;
}

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD)
    throw badRequest(`The password must have at least ${MIN_PASSWORD} characters`, 'password_too_short');
  if (password.length > MAX_PASSWORD)
    throw badRequest(`The password must have at most ${MAX_PASSWORD} characters`, 'password_too_long');
}

/** The demo sign-ins' passwords (src/seed/dashboard.ts), printed in the README and docs/dashboard.md. */
export const PUBLISHED_PASSWORDS: ReadonlySet<string> = new Set([
  'demo-password-1',
  'demo-password-2',
  'operator-password-1',
]);

/** Length limits everywhere; in production no account may carry a password anyone can read. */
export function acceptablePassword(env: Config['env'], password: string): void {
  checkPassword(password);
  if (env === 'production' && PUBLISHED_PASSWORDS.has(password))
    throw badRequest(
      'This password is a demo sign-in printed in the documentation; choose another',
      'password_published',
    );
}

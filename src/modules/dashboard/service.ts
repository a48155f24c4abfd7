import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { pgErrorCode, PG_UNIQUE_VIOLATION } from '../../platform/db/index.ts';
import { ApiError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { DashboardDeps } from './deps.ts';
import { Gate } from '../../platform/gate.ts';
import { logoFile, storeLogo } from './logos.ts';
import {
  CLIENT_ATTEMPTS_PER_MINUTE,
  FAILURE_WINDOW_MS,
  GLOBAL_FREE_NETWORKS,
  clientNetwork,
  delayAfter,
} from './throttle.ts';
import { type Role, type SessionRow, type UserRow, dashboardRepo as repo } from './repo.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const SESSION_IDLE_MS = 12 * HOUR;
export const SESSION_MAX_MS = 7 * 24 * HOUR;
export const INVITATION_MS = 7 * 24 * HOUR;
export const MIN_PASSWORD = 10;
const MAX_PASSWORD = 200;

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };
const EMAIL = /^[^\s@<>"']{1,64}@[^\s@<>"']+\.[^\s@<>"']+$/;

const sha256 = (s: string) => hash('sha256', s);
const token = () => randomBytes(32).toString('base64url');

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

/** Spends the same work on an unknown e-mail as on a known one, so timing does not tell them apart. */
const DUMMY_HASH = hashPassword(randomBytes(12).toString('hex'));

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

export interface Session {
  idHash: string;
  csrf: string;
  flash: string | null;
  user: UserRow;
}

export const toUser = (u: UserRow) => ({
  reference: u.id,
  email: u.email,
  role: u.role,
  organizationReference: u.organization_id,
  status: u.disabled_at ? 'disabled' : u.password_hash ? 'active' : 'invited',
  created: u.created_at.toISOString(),
});

export type DashboardService = ReturnType<typeof dashboardService>;

/** Users, passwords, sessions, the sign-in lockout and invitations. */
/** Failed sign-ins per client network, any e-mail (shared across nodes with Redis). */
const CLIENT_POLICY = { name: 'sign-in', quota: CLIENT_ATTEMPTS_PER_MINUTE, windowSeconds: 60 };
const passwordChecks = new Gate(2, 64, 'sign-ins');

function tooMany(seconds: number): ApiError {
  const s = Math.max(1, seconds);
  const when = s < 90 ? `${s} second${s === 1 ? '' : 's'}` : `${Math.ceil(s / 60)} minutes`;
  return new ApiError('sign_in_throttled', `Too many failed sign-ins. Try again in ${when}.`, {
    headers: {
      'retry-after': String(s),
    },
  });
}

export function dashboardService(deps: DashboardDeps) {
  const { db, clock } = deps;

  /** Length limits everywhere; in production no account may carry a password anyone can read. */
  function acceptablePassword(password: string): void {
    checkPassword(password);
    if (deps.env === 'production' && PUBLISHED_PASSWORDS.has(password))
      throw badRequest(
        'This password is a demo sign-in printed in the documentation; choose another',
        'password_published',
      );
  }

  async function insertUser(input: {
    organizationId: string | null;
    email: string;
    role: Role;
    password: string | null;
  }) {
    const email = normalizeEmail(input.email);
    if (input.password !== null) acceptablePassword(input.password);
    const id = newReference('User');
    const passwordHash = input.password === null ? null : await hashPassword(input.password);
    try {
      await repo.insertUser(db, {
        id,
        organizationId: input.organizationId,
        email,
        role: input.role,
        passwordHash,
        createdAt: clock.now(),
      });
    } catch (err) {
      if (pgErrorCode(err) === PG_UNIQUE_VIOLATION)
        throw conflict('email_in_use', `A user with e-mail ${email} already exists`);
      throw err;
    }
    return (await repo.user(db, id))!;
  }

  /**
   * When the lock of this e-mail ends, or null when sign-in may be tried. Only the e-mail is locked:
   * a lock per client address would let one client behind a shared proxy lock everybody out.
   */
  /** How long the attempt must wait, given the failures recorded before it; 0 lets it through. */
  function waitMs(before: { mine: Date[]; networks: number }, now: Date): number {
    const last = before.mine.at(-1);
    const own = last ? last.getTime() + delayAfter(before.mine.length) - now.getTime() : 0;
    const all = before.networks >= GLOBAL_FREE_NETWORKS ? delayAfter(before.networks, GLOBAL_FREE_NETWORKS) : 0;
    return Math.max(own, all, 0);
  }

  async function startSession(user: UserRow): Promise<{ cookie: string; session: Session }> {
    const raw = token();
    const now = clock.now();
    // Expired sessions and day-old attempts go at each sign-in: cheap, and no job to schedule.
    await repo.purgeExpired(db, now);
    const csrf = token();
    await repo.insertSession(db, {
      id_hash: sha256(raw),
      user_id: user.id,
      csrf_token: csrf,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_IDLE_MS),
    });
    return { cookie: raw, session: { idHash: sha256(raw), csrf, flash: null, user } };
  }

  const service = {
    async createPartnerUser(orgId: string, input: { email: string; password: string }) {
      await deps.organization.organizationRow(orgId);
      return toUser(
        await insertUser({ organizationId: orgId, email: input.email, role: 'partner', password: input.password }),
      );
    },
    async createOperatorUser(input: { email: string; password: string }) {
      return toUser(
        await insertUser({ organizationId: null, email: input.email, role: 'operator', password: input.password }),
      );
    },
    async listUsers(orgId: string) {
      await deps.organization.organizationRow(orgId);
      return (await repo.usersOf(db, orgId)).map(toUser);
    },
    async listOperators() {
      return (await repo.operators(db)).map(toUser);
    },
    userByEmail: (email: string) => repo.userByEmail(db, email.trim().toLowerCase()),
    async setPassword(userId: string, password: string) {
      acceptablePassword(password);
      await repo.setPassword(db, userId, await hashPassword(password));
    },

    /**
     * Checks e-mail and password under the lockout. Every outcome but success is the same message,
     * so the form does not reveal which e-mails have accounts.
     */
    async signIn(input: {
      email: string;
      password: string;
      ip: string;
    }): Promise<{ cookie: string; session: Session }> {
      const email = input.email.trim().toLowerCase().slice(0, 254);
      const now = clock.now();
      const network = clientNetwork(input.ip);
      // Failed sign-ins of a network, whatever the e-mail (a password sprayer): a token per failure.
      // Taken before the password check, so concurrent attempts cannot all pass a look at the
      // bucket; given back when the attempt turns out not to be a failed guess.
      const subject = `sign-in:${network}`;
      const client = await deps.rateLimits.consume(subject, [CLIENT_POLICY]);
      if (!client.allowed) throw tooMany(Math.ceil(client.waitSeconds));
      const giveBack = () => deps.rateLimits.giveBack(subject, [CLIENT_POLICY]);
      const before = await repo.beginAttempt(db, {
        email,
        ip: network,
        at: now,
        since: new Date(now.getTime() - FAILURE_WINDOW_MS),
      });
      const wait = waitMs(before, now);
      if (wait > 0) {
        // A refused attempt was never a guess: it does not lengthen the delay.
        await repo.forgetAttempt(db, before.id);
        await giveBack();
        throw tooMany(Math.ceil(wait / 1000));
      }
      const user = await repo.userByEmail(db, email);
      const candidate = input.password.slice(0, MAX_PASSWORD);
      const usable = Boolean(user?.password_hash && !user.disabled_at);
      // A bounded number of password checks at once: the scrypt threads are shared with file and
      // DNS work, and a burst of sign-ins must not queue everything else behind it.
      const stored = usable ? user!.password_hash! : await DUMMY_HASH;
      const matches = await passwordChecks.run(() => verifyPassword(candidate, stored));
      const ok = usable && matches;
      if (!ok || !user) throw new ApiError('invalid_credentials', 'The e-mail or password is wrong.');
      await repo.attemptSucceeded(db, before.id);
      await giveBack();
      return startSession(user);
    },

    /** The session of a cookie value; sliding idle expiry, capped at SESSION_MAX_MS after creation. */
    async session(cookie: string | undefined): Promise<Session | null> {
      if (!cookie || cookie.length > 100) return null;
      const now = clock.now();
      const row = await repo.session(db, sha256(cookie), now);
      if (!row) return null;
      if (now.getTime() - new Date(row.last_seen_at).getTime() > MINUTE) {
        const cap = new Date(new Date(row.created_at).getTime() + SESSION_MAX_MS);
        const idle = new Date(now.getTime() + SESSION_IDLE_MS);
        await repo.touchSession(db, row.id_hash, now, idle < cap ? idle : cap);
      }
      return { idHash: row.id_hash, csrf: row.csrf_token, flash: row.flash, user: row.user };
    },
    signOut: (s: Pick<SessionRow, 'id_hash'> | { idHash: string }) =>
      repo.deleteSession(db, 'idHash' in s ? s.idHash : s.id_hash),
    setFlash: (s: Session, message: string | null) =>
      repo.setFlash(db, s.idHash, message ? message.slice(0, 500) : null),

    /** A one-time link for setting a password; the user exists (without a password) from now on. */
    async invite(
      orgId: string,
      email: string,
      invitedBy: string | null,
      opts: { discreet?: boolean } = {},
    ): Promise<{ token: string; email: string; user: ReturnType<typeof toUser> | null }> {
      await deps.organization.organizationRow(orgId);
      const normalized = normalizeEmail(email);
      const existing = await repo.userByEmail(db, normalized);
      const elsewhere = !!existing && existing.organization_id !== orgId;
      const taken = elsewhere || !!existing?.password_hash;
      // A partner learns nothing about addresses outside the organization: the link is made all the
      // same and simply does not work (acceptance checks the user's organization). Its own active
      // users it sees on the users page anyway.
      if (taken && !(opts.discreet && elsewhere))
        throw conflict('email_in_use', `A user with e-mail ${normalized} already exists`);
      const user = taken
        ? null
        : (existing ??
          (await insertUser({ organizationId: orgId, email: normalized, role: 'partner', password: null })));
      const raw = token();
      const now = clock.now();
      await db.tx(async (tx) => {
        await repo.expireInvitationsFor(tx, normalized, now);
        await repo.insertInvitation(tx, {
          id: newReference('Invitation'),
          token_hash: sha256(raw),
          organization_id: orgId,
          email: normalized,
          invited_by: invitedBy,
          created_at: now,
          expires_at: new Date(now.getTime() + INVITATION_MS),
        });
      });
      return { token: raw, email: normalized, user: user && toUser(user) };
    },
    async invitations(orgId: string) {
      const now = clock.now();
      return (await repo.invitationsOf(db, orgId)).map((i) => ({
        reference: i.id,
        email: i.email,
        created: i.created_at.toISOString(),
        expires: i.expires_at.toISOString(),
        status: i.accepted_at ? 'accepted' : i.expires_at <= now ? 'expired' : 'open',
      }));
    },
    /** The open invitation of a link, or a 404 for an unknown, used or expired one. */
    async openInvitation(raw: string) {
      const inv = raw && raw.length <= 100 ? await repo.invitationByToken(db, sha256(raw)) : null;
      if (!inv || inv.accepted_at || inv.expires_at <= clock.now())
        throw notFound('Invitation (the link is unknown, used or expired)');
      return inv;
    },
    async acceptInvitation(raw: string, password: string): Promise<{ cookie: string; session: Session }> {
      const inv = await service.openInvitation(raw);
      acceptablePassword(password);
      const hash = await hashPassword(password);
      const user = await repo.userByEmail(db, inv.email);
      if (!user || user.organization_id !== inv.organization_id)
        throw notFound('Invitation (the link is unknown, used or expired)');
      const taken = await db.tx(async (tx) => {
        if (!(await repo.acceptInvitation(tx, inv.id, clock.now()))) return false;
        await repo.setPassword(tx, user.id, hash);
        await repo.deleteSessionsOf(tx, user.id);
        return true;
      });
      if (!taken) throw notFound('Invitation (the link is unknown, used or expired)');
      return startSession((await repo.user(db, user.id))!);
    },

    isUserReference: (ref: string) => isReference('User', ref),
    /** Stores the image (outside any transaction), then points the brand at it. */
    async uploadLogo(orgId: string, brandRef: string, data: Buffer) {
      await deps.organization.brandRow(orgId, brandRef);
      const url = await storeLogo(deps.blobs, deps.publicBaseUrl, data);
      return deps.organization.updateBrand(orgId, brandRef, { logoUrl: url });
    },
    logoFile: (file: string) => logoFile(deps.blobs, file),
  };
  return service;
}

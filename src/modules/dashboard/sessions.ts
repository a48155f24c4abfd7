import { hash, randomBytes } from 'node:crypto';
import { ApiError } from '../../platform/errors.ts';
import { Gate } from '../../platform/gate.ts';
import type { DashboardDeps } from './deps.ts';
import { MAX_PASSWORD, dummyHash, verifyPassword } from './passwords.ts';
import { type SessionRow, type UserRow, dashboardRepo as repo } from './repo.ts';
import {
  CLIENT_ATTEMPTS_PER_MINUTE,
  FAILURE_WINDOW_MS,
  GLOBAL_FREE_NETWORKS,
  clientNetwork,
  delayAfter,
} from './throttle.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const SESSION_IDLE_MS = 12 * HOUR;
export const SESSION_MAX_MS = 7 * 24 * HOUR;

export const sha256 = (s: string) => hash('sha256', s);
export const token = () => randomBytes(32).toString('base64url');

export interface Session {
  idHash: string;
  csrf: string;
  flash: string | null;
  user: UserRow;
}

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

/**
 * How long the attempt must wait, given the failures recorded before it; 0 lets it through. Only
 * the e-mail is locked: a lock per client address would let one client behind a shared proxy lock
 * everybody out.
 */
function waitMs(before: { mine: Date[]; networks: number }, now: Date): number {
  const last = before.mine.at(-1);
  const own = last ? last.getTime() + delayAfter(before.mine.length) - now.getTime() : 0;
  const all = before.networks >= GLOBAL_FREE_NETWORKS ? delayAfter(before.networks, GLOBAL_FREE_NETWORKS) : 0;
  return Math.max(own, all, 0);
}

/** Sign-in under the lockout, and the sessions it starts: sliding idle expiry, capped in total. */
export function dashboardSessions(deps: DashboardDeps) {
  const { db, clock } = deps;

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

  return {
    startSession,
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
      const stored = usable ? user!.password_hash! : await dummyHash();
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
  };
}

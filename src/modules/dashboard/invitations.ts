import { conflict, notFound } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import type { DashboardDeps } from './deps.ts';
import { acceptablePassword, hashPassword, normalizeEmail } from './passwords.ts';
import { dashboardRepo as repo } from './repo.ts';
import { type Session, sha256, token } from './sessions.ts';
import { type User, type dashboardUsers, toUser } from './users.ts';

const HOUR = 3600_000;
export const INVITATION_MS = 7 * 24 * HOUR;

const unknownLink = () => notFound('Invitation (the link is unknown, used or expired)');

/** One-time links that let a partner's colleague set a password and sign in. */
export function dashboardInvitations(
  deps: DashboardDeps,
  users: Pick<ReturnType<typeof dashboardUsers>, 'insertUser'>,
  startSession: (user: Parameters<typeof toUser>[0]) => Promise<{ cookie: string; session: Session }>,
) {
  const { db, clock } = deps;

  /** The open invitation of a link, or a 404 for an unknown, used or expired one. */
  async function openInvitation(raw: string) {
    const inv = raw && raw.length <= 100 ? await repo.invitationByToken(db, sha256(raw)) : null;
    if (!inv || inv.accepted_at || inv.expires_at <= clock.now()) throw unknownLink();
    return inv;
  }

  return {
    /** A one-time link for setting a password; the user exists (without a password) from now on. */
    async invite(
      orgId: string,
      email: string,
      invitedBy: string | null,
      opts: { discreet?: boolean } = {},
    ): Promise<{ token: string; email: string; user: User | null }> {
      await deps.organization.organizationFacts(orgId);
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
          (await users.insertUser({ organizationId: orgId, email: normalized, role: 'partner', password: null })));
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
    openInvitation,
    async acceptInvitation(raw: string, password: string): Promise<{ cookie: string; session: Session }> {
      const inv = await openInvitation(raw);
      acceptablePassword(deps.env, password);
      const hash = await hashPassword(password);
      const user = await repo.userByEmail(db, inv.email);
      if (!user || user.organization_id !== inv.organization_id) throw unknownLink();
      const taken = await db.tx(async (tx) => {
        if (!(await repo.acceptInvitation(tx, inv.id, clock.now()))) return false;
        await repo.setPassword(tx, user.id, hash);
        await repo.deleteSessionsOf(tx, user.id);
        return true;
      });
      if (!taken) throw unknownLink();
      return startSession((await repo.user(db, user.id))!);
    },
  };
}

import { pgErrorCode, PG_UNIQUE_VIOLATION } from '../../platform/db/index.ts';
import { conflict } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import type { DashboardDeps } from './deps.ts';
import { acceptablePassword, hashPassword, normalizeEmail } from './passwords.ts';
import { type Role, type UserRow, dashboardRepo as repo } from './repo.ts';

export const toUser = (u: UserRow) => ({
  reference: u.id,
  email: u.email,
  role: u.role,
  organizationReference: u.organization_id,
  status: u.disabled_at ? 'disabled' : u.password_hash ? 'active' : 'invited',
  created: u.created_at.toISOString(),
});

export type User = ReturnType<typeof toUser>;

/** The dashboard's users: partners of one organization and operators; a user without a password is invited. */
export function dashboardUsers(deps: DashboardDeps) {
  const { db, clock } = deps;

  async function insertUser(input: {
    organizationId: string | null;
    email: string;
    role: Role;
    password: string | null;
  }): Promise<UserRow> {
    const email = normalizeEmail(input.email);
    if (input.password !== null) acceptablePassword(deps.env, input.password);
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

  return {
    insertUser,
    async createPartnerUser(orgId: string, input: { email: string; password: string }) {
      await deps.organization.organizationFacts(orgId);
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
      await deps.organization.organizationFacts(orgId);
      return (await repo.usersOf(db, orgId)).map(toUser);
    },
    async listOperators() {
      return (await repo.operators(db)).map(toUser);
    },
    userByEmail: (email: string) => repo.userByEmail(db, email.trim().toLowerCase()),
    async setPassword(userId: string, password: string) {
      acceptablePassword(deps.env, password);
      await repo.setPassword(db, userId, await hashPassword(password));
    },
  };
}

import { isReference } from '../../platform/ids.ts';
import type { DashboardDeps } from './deps.ts';
import { dashboardInvitations } from './invitations.ts';
import { logoFile, storeLogo } from './logos.ts';
import { dashboardSessions } from './sessions.ts';
import { dashboardUsers } from './users.ts';

export { INVITATION_MS } from './invitations.ts';
export {
  MIN_PASSWORD,
  PUBLISHED_PASSWORDS,
  checkPassword,
  hashPassword,
  normalizeEmail,
  verifyPassword,
} from './passwords.ts';
export { SESSION_IDLE_MS, SESSION_MAX_MS, type Session } from './sessions.ts';
export { toUser } from './users.ts';

export type DashboardService = ReturnType<typeof dashboardService>;

/**
 * Users (users.ts), sign-in with its lockout and sessions (sessions.ts), invitations
 * (invitations.ts) and brand logos.
 */
export function dashboardService(deps: DashboardDeps) {
  const { insertUser, ...users } = dashboardUsers(deps);
  const { startSession, ...sessions } = dashboardSessions(deps);
  return {
    ...users,
    ...sessions,
    ...dashboardInvitations(deps, { insertUser }, startSession),
    isUserReference: (ref: string) => isReference('User', ref),
    /** Stores the image (outside any transaction), then points the brand at it. */
    async uploadLogo(orgId: string, brandRef: string, data: Buffer) {
      await deps.organization.brand(orgId, brandRef);
      const url = await storeLogo(deps.blobs, deps.publicBaseUrl, data);
      return deps.organization.updateBrand(orgId, brandRef, { logoUrl: url });
    },
    logoFile: (file: string) => logoFile(deps.blobs, file),
  };
}

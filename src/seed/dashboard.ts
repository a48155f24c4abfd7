import type { SeedDeps } from './deps.ts';

export interface DashboardSeedUser {
  email: string;
  password: string;
  role: 'partner' | 'operator';
  organizationReference: string | null;
}

/** Demo sign-ins, documented in docs/dashboard.md; one partner per demo organization. */
const PARTNERS = [
  { email: 'partner@demo-cases.example', password: 'demo-password-1' },
  { email: 'partner@other-prints.example', password: 'demo-password-2' },
];
const OPERATOR = { email: 'operator@pod-service.example', password: 'operator-password-1' };

/** Creates the demo users once; a later run finds them by e-mail and leaves them as they are. */
export async function seedDashboard(s: Pick<SeedDeps, 'dashboard'>, orgIds: string[]): Promise<DashboardSeedUser[]> {
  const out: DashboardSeedUser[] = [];
  for (const [i, p] of PARTNERS.entries()) {
    const orgId = orgIds[i];
    if (!orgId) continue;
    if (!(await s.dashboard.userByEmail(p.email))) await s.dashboard.createPartnerUser(orgId, p);
    out.push({ ...p, role: 'partner', organizationReference: orgId });
  }
  if (!(await s.dashboard.userByEmail(OPERATOR.email))) await s.dashboard.createOperatorUser(OPERATOR);
  out.push({ ...OPERATOR, role: 'operator', organizationReference: null });
  return out;
}

import type { Executor } from '../../platform/db/index.ts';

export type Role = 'partner' | 'operator';

export interface UserRow {
  id: string;
  seq: number;
  organization_id: string | null;
  email: string;
  role: Role;
  password_hash: string | null;
  created_at: Date;
  disabled_at: Date | null;
}
export interface SessionRow {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  flash: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}
export interface InvitationRow {
  id: string;
  token_hash: string;
  organization_id: string;
  email: string;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
}

/** All SQL of the dashboard: users, sessions, sign-in attempts and invitations. */
export const dashboardRepo = {
  async insertUser(
    ex: Executor,
    u: {
      id: string;
      organizationId: string | null;
      email: string;
      role: Role;
      passwordHash: string | null;
      createdAt: Date;
    },
  ) {
    await ex.query(
      'INSERT INTO dashboard_users (id, organization_id, email, role, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [u.id, u.organizationId, u.email, u.role, u.passwordHash, u.createdAt],
    );
  },
  async userByEmail(ex: Executor, email: string): Promise<UserRow | null> {
    return (await ex.query<UserRow>('SELECT * FROM dashboard_users WHERE email = $1', [email]))[0] ?? null;
  },
  async user(ex: Executor, id: string): Promise<UserRow | null> {
    return (await ex.query<UserRow>('SELECT * FROM dashboard_users WHERE id = $1', [id]))[0] ?? null;
  },
  async usersOf(ex: Executor, orgId: string): Promise<UserRow[]> {
    return ex.query<UserRow>('SELECT * FROM dashboard_users WHERE organization_id = $1 ORDER BY seq', [orgId]);
  },
  async operators(ex: Executor): Promise<UserRow[]> {
    return ex.query<UserRow>("SELECT * FROM dashboard_users WHERE role = 'operator' ORDER BY seq");
  },
  async setPassword(ex: Executor, id: string, hash: string) {
    await ex.query('UPDATE dashboard_users SET password_hash = $2 WHERE id = $1', [id, hash]);
  },

  async insertSession(ex: Executor, s: Omit<SessionRow, 'flash'>) {
    await ex.query(
      'INSERT INTO dashboard_sessions (id_hash, user_id, csrf_token, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [s.id_hash, s.user_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at],
    );
  },
  async session(ex: Executor, idHash: string, now: Date): Promise<(SessionRow & { user: UserRow }) | null> {
    const rows = await ex.query(
      `SELECT s.*, row_to_json(u.*) AS user_json FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id
       WHERE s.id_hash = $1 AND s.expires_at > $2 AND u.disabled_at IS NULL`,
      [idHash, now],
    );
    const r = rows[0];
    if (!r) return null;
    const u = typeof r.user_json === 'string' ? JSON.parse(r.user_json) : r.user_json;
    const user: UserRow = {
      ...u,
      created_at: new Date(u.created_at),
      disabled_at: u.disabled_at ? new Date(u.disabled_at) : null,
    };
    return {
      id_hash: r.id_hash,
      user_id: r.user_id,
      csrf_token: r.csrf_token,
      flash: r.flash,
      created_at: r.created_at,
      last_seen_at: r.last_seen_at,
      expires_at: r.expires_at,
      user,
    };
  },
  async touchSession(ex: Executor, idHash: string, now: Date, expiresAt: Date) {
    await ex.query('UPDATE dashboard_sessions SET last_seen_at = $2, expires_at = $3 WHERE id_hash = $1', [
      idHash,
      now,
      expiresAt,
    ]);
  },
  async setFlash(ex: Executor, idHash: string, flash: string | null) {
    await ex.query('UPDATE dashboard_sessions SET flash = $2 WHERE id_hash = $1', [idHash, flash]);
  },
  async deleteSession(ex: Executor, idHash: string) {
    await ex.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]);
  },
  async deleteSessionsOf(ex: Executor, userId: string) {
    await ex.query('DELETE FROM dashboard_sessions WHERE user_id = $1', [userId]);
  },
  async purgeExpired(ex: Executor, now: Date) {
    await ex.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [now]);
    await ex.query('DELETE FROM dashboard_login_attempts WHERE at < $1', [new Date(now.getTime() - 86400_000)]);
  },

  /**
   * Records an attempt as failed before its password is checked (`ip` holds the client network)
   * and returns the failures of the same e-mail before it, per network and over all: concurrent
   * attempts each count the ones recorded before them, so no burst slips past the count.
   */
  async beginAttempt(
    ex: Executor,
    a: { email: string; ip: string; at: Date; since: Date },
  ): Promise<{ id: number; mine: Date[]; networks: number }> {
    const [row] = await ex.query<{ id: number }>(
      'INSERT INTO dashboard_login_attempts (email, ip, succeeded, at) VALUES ($1, $2, false, $3) RETURNING id',
      [a.email, a.ip, a.at],
    );
    const rows = await ex.query<{ at: Date; ip: string }>(
      `SELECT at, ip FROM dashboard_login_attempts
       WHERE email = $1 AND NOT succeeded AND at > $2 AND id < $3
         AND at > COALESCE((SELECT max(at) FROM dashboard_login_attempts WHERE email = $1 AND succeeded), '-infinity'::timestamptz)
       ORDER BY at`,
      [a.email, a.since, row.id],
    );
    const mine = rows.filter((r) => r.ip === a.ip).map((r) => r.at);
    return { id: Number(row.id), mine, networks: new Set(rows.map((r) => r.ip)).size };
  },
  async forgetAttempt(ex: Executor, id: number) {
    await ex.query('DELETE FROM dashboard_login_attempts WHERE id = $1', [id]);
  },
  async attemptSucceeded(ex: Executor, id: number) {
    await ex.query('UPDATE dashboard_login_attempts SET succeeded = true WHERE id = $1', [id]);
  },

  async insertInvitation(ex: Executor, i: Omit<InvitationRow, 'accepted_at'>) {
    await ex.query(
      'INSERT INTO dashboard_invitations (id, token_hash, organization_id, email, invited_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [i.id, i.token_hash, i.organization_id, i.email, i.invited_by, i.created_at, i.expires_at],
    );
  },
  async invitationByToken(ex: Executor, tokenHash: string): Promise<InvitationRow | null> {
    return (
      (await ex.query<InvitationRow>('SELECT * FROM dashboard_invitations WHERE token_hash = $1', [tokenHash]))[0] ??
      null
    );
  },
  async invitationsOf(ex: Executor, orgId: string): Promise<InvitationRow[]> {
    return ex.query<InvitationRow>(
      'SELECT * FROM dashboard_invitations WHERE organization_id = $1 ORDER BY seq DESC LIMIT 100',
      [orgId],
    );
  },
  /** Taken once: a second acceptance of the same link finds nothing to update. */
  async acceptInvitation(ex: Executor, id: string, now: Date): Promise<boolean> {
    const rows = await ex.query(
      'UPDATE dashboard_invitations SET accepted_at = $2 WHERE id = $1 AND accepted_at IS NULL AND expires_at > $2 RETURNING id',
      [id, now],
    );
    return rows.length === 1;
  },
  async expireInvitationsFor(ex: Executor, email: string, now: Date) {
    await ex.query(
      'UPDATE dashboard_invitations SET expires_at = $2 WHERE email = $1 AND accepted_at IS NULL AND expires_at > $2',
      [email, now],
    );
  },
};

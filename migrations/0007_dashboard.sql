-- Web dashboard (partners) and console (operators): users, server-side sessions, sign-in attempts
-- for the lockout, and invitations. Secrets (passwords, session ids, invitation tokens) are stored
-- only as hashes.

CREATE TABLE dashboard_users (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text REFERENCES organizations(id),
  email text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('partner', 'operator')),
  password_hash text,
  created_at timestamptz NOT NULL,
  disabled_at timestamptz,
  CHECK ((role = 'operator') = (organization_id IS NULL))
);
CREATE INDEX dashboard_users_org ON dashboard_users (organization_id, seq);

CREATE TABLE dashboard_sessions (
  id_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES dashboard_users(id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  flash text,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);

CREATE TABLE dashboard_login_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL,
  ip text NOT NULL,
  succeeded boolean NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX dashboard_login_attempts_email ON dashboard_login_attempts (email, at);

CREATE TABLE dashboard_invitations (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  token_hash text NOT NULL UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  email text NOT NULL,
  invited_by text REFERENCES dashboard_users(id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz
);
CREATE INDEX dashboard_invitations_org ON dashboard_invitations (organization_id, seq);

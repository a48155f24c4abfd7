-- Organization structure, API keys and the job queue: what every module stands on.
-- Tables carry the public reference as primary key and a sequence number for keyset pagination.

CREATE TABLE organizations (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  name text NOT NULL,
  rate_limits jsonb,
  rendertoken_limit integer NOT NULL DEFAULT 1000,
  created_at timestamptz NOT NULL
);

CREATE TABLE accounts (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  balance_cents bigint NOT NULL DEFAULT 0,
  payment_term_days integer NOT NULL DEFAULT 14,
  legal_entity_name text NOT NULL,
  vat_number text,
  billing_address jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX accounts_org ON accounts (organization_id, seq);

CREATE TABLE brands (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  logo_url text,
  primary_color text NOT NULL DEFAULT '#222222',
  secondary_color text NOT NULL DEFAULT '#f5f5f5',
  customer_service jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL
);
CREATE INDEX brands_org ON brands (organization_id, seq);

CREATE TABLE stores (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  account_id text NOT NULL REFERENCES accounts(id),
  name text NOT NULL,
  code text NOT NULL UNIQUE,
  integration text NOT NULL,
  default_brand_id text REFERENCES brands(id),
  combined_address jsonb,
  callback_url text,
  order_counter integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL
);
CREATE INDEX stores_org ON stores (organization_id, seq);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  hint text NOT NULL,
  read_only boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_org ON api_keys (organization_id, seq);

CREATE TABLE jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'succeeded', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer,
  run_at timestamptz NOT NULL,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  dedupe_key text UNIQUE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX jobs_due ON jobs (run_at) WHERE status = 'pending';
CREATE INDEX jobs_leased ON jobs (locked_until) WHERE status = 'running';
CREATE INDEX jobs_status ON jobs (status, id);

CREATE TABLE idempotency_keys (
  organization_id text NOT NULL REFERENCES organizations(id),
  key text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  body_hash text NOT NULL,
  status integer,
  response jsonb,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

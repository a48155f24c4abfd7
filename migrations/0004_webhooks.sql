-- Events (the outbox the webhook system delivers from, and the 30-day events list), webhook
-- endpoints and the delivery log.

CREATE TABLE events (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX events_org ON events (organization_id, seq);
CREATE INDEX events_org_type ON events (organization_id, type, seq);
CREATE INDEX events_created ON events (created_at);

CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  url text NOT NULL,
  event_types text[] NOT NULL,
  description text,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  secret_enc text NOT NULL,
  previous_secret_enc text,
  previous_secret_expires_at timestamptz,
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (organization_id, seq) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id),
  event_id text NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  resend_of text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts jsonb NOT NULL DEFAULT '[]',
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_org ON webhook_deliveries (organization_id, seq);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

-- The request log of the partner dashboard: one row per /v2 request of an organization, written in
-- batches off the request path. No foreign keys: rows are inserted many at a time and only ever
-- read through the organization that made them; the maintenance job deletes them after retention.
CREATE TABLE request_log (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id text NOT NULL,
  organization_id text NOT NULL,
  key_id text,
  method text NOT NULL,
  path text NOT NULL,
  status integer NOT NULL,
  latency_ms integer NOT NULL,
  error_code text,
  -- Only for errors, redacted before they are stored.
  request_body jsonb,
  response_body jsonb,
  created_at timestamptz NOT NULL
);
CREATE INDEX request_log_org ON request_log (organization_id, seq DESC);
CREATE INDEX request_log_request_id ON request_log (request_id);
CREATE INDEX request_log_created ON request_log (created_at);

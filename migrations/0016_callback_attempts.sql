-- Every attempt of the legacy order-updated callback (jobs keep only a count and the last error),
-- for the order timeline of the partner dashboard. One row is written, in one statement, after the
-- HTTP call of an attempt ends; a crash during the call leaves no row and the job runs again.
-- Rows go after the same retention as webhook deliveries (the maintenance job), or with their order.
CREATE TABLE callback_attempts (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id text NOT NULL,
  order_id text NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  job_id bigint NOT NULL,
  attempt integer NOT NULL,
  at timestamptz NOT NULL,
  -- `not_sent`: the store had no callback URL any more when the job ran (nothing was called).
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'failed', 'not_sent')),
  -- The HTTP status, or null when no answer came (then `error` says why).
  response_status integer,
  -- One line, cut short, without URL query values or API keys (a URL may carry a token).
  error text,
  duration_ms integer NOT NULL
);
CREATE INDEX callback_attempts_order ON callback_attempts (organization_id, order_id, seq);
CREATE INDEX callback_attempts_at ON callback_attempts (at);

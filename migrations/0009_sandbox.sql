-- The sandbox and its production counterparts: test clocks, shipment tracking events, per-object
-- event sequences, and the organization a job works for.

ALTER TABLE jobs ADD COLUMN organization_id text;
CREATE INDEX jobs_org_pending ON jobs (organization_id, run_at) WHERE status = 'pending' AND organization_id IS NOT NULL;

-- Test environment only: an organization's frozen time, moved only forward by the partner.
CREATE TABLE test_clocks (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  frozen_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE tracking_events (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  shipment_id text NOT NULL REFERENCES shipments(id),
  -- The carrier's own id of the event: a second delivery of the same event is a no-op.
  carrier_event_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned')),
  occurred_at timestamptz NOT NULL,
  location text,
  description text,
  created_at timestamptz NOT NULL,
  UNIQUE (shipment_id, carrier_event_id)
);
CREATE INDEX tracking_events_shipment ON tracking_events (shipment_id, occurred_at, seq);

-- The last `sequence` given to an event about each order or shipment.
CREATE TABLE object_sequences (
  object_id text PRIMARY KEY,
  sequence bigint NOT NULL
);

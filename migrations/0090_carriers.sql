-- Carriers: which adapter labelled a shipment, the carrier's parcel and label, what its tracking
-- says about the business (delivered, returned, lost), and every raw carrier status received.

-- How the shipment got its label and tracking number: 'assigned' (sandbox, manual, or a number the
-- operator typed), 'pending' (a carrier announcement job is under way), 'announced' (the carrier's
-- label is stored), 'refused' (the carrier refused; the operator corrects and retries).
ALTER TABLE shipments ADD COLUMN label_state text NOT NULL DEFAULT 'assigned'
  CHECK (label_state IN ('assigned', 'pending', 'announced', 'refused'));
ALTER TABLE shipments ADD COLUMN carrier_adapter text NOT NULL DEFAULT 'sandbox';
-- The carrier platform's own parcel id (Sendcloud's parcel id): webhooks and polls find the shipment by it.
ALTER TABLE shipments ADD COLUMN carrier_parcel_id text;
-- The carrier's last refusal or the last failed attempt to reach it, verbatim; null once announced.
ALTER TABLE shipments ADD COLUMN carrier_error text;
ALTER TABLE shipments ADD COLUMN label_blob text;
ALTER TABLE shipments ADD COLUMN delivered_at timestamptz;
ALTER TABLE shipments ADD COLUMN returned_at timestamptz;
-- Why an operator should look at the shipment: 'returned', 'exception', 'lost' or 'refused'; null: nothing to do.
ALTER TABLE shipments ADD COLUMN attention text;
ALTER TABLE shipments ADD COLUMN attention_since timestamptz;
-- When the carrier was last heard of for this parcel (webhook, poll or feed).
ALTER TABLE shipments ADD COLUMN tracking_seen_at timestamptz;
CREATE UNIQUE INDEX shipments_carrier_parcel ON shipments (carrier_adapter, carrier_parcel_id)
  WHERE carrier_parcel_id IS NOT NULL;
CREATE INDEX shipments_attention ON shipments (attention_since) WHERE attention IS NOT NULL;
CREATE INDEX shipments_in_transit ON shipments (tracking_seen_at)
  WHERE tracking_token IS NOT NULL AND delivered_at IS NULL AND returned_at IS NULL;

-- Every status a carrier reported, mapped or not: unknown codes are kept and shown, never dropped.
CREATE TABLE carrier_statuses (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  shipment_id text NOT NULL REFERENCES shipments(id),
  carrier text NOT NULL,
  code text NOT NULL,
  message text,
  -- The service's tracking status it maps to; null: unknown to the mapping table.
  mapped_status text,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (shipment_id, carrier, code, occurred_at)
);
CREATE INDEX carrier_statuses_shipment ON carrier_statuses (shipment_id, occurred_at);

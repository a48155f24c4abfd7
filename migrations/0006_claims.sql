-- Claims, their lines, categories and evidence. Retention runs as jobs (`claims.evidence-expire`,
-- `claims.evidence-purge`).

-- Categories are shared by every organization; operators add item-issue categories. Exactly one
-- row is the package-missing category, which item-issues claims may not use.
CREATE TABLE claimcategories (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  name text NOT NULL UNIQUE,
  evidence_required boolean NOT NULL,
  package_missing boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX claimcategories_package_missing ON claimcategories (package_missing) WHERE package_missing;

CREATE TABLE claims (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  kind text NOT NULL CHECK (kind IN ('package_missing', 'item_issues')),
  shipment_id text NOT NULL REFERENCES shipments(id),
  order_id text NOT NULL REFERENCES orders(id),
  status text NOT NULL CHECK (status IN ('pending', 'resolved', 'rejected', 'retracted')),
  comment text NOT NULL DEFAULT '',
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  retracted_at timestamptz,
  decided_at timestamptz,
  -- decided_at or retracted_at: when the claim left `pending`
  closed_at timestamptz,
  refund_shipping_costs boolean,
  decision_comment text,
  evidence_purged_at timestamptz
);
CREATE INDEX claims_org ON claims (organization_id, seq);
CREATE INDEX claims_shipment ON claims (shipment_id);

CREATE TABLE claimlines (
  claim_id text NOT NULL REFERENCES claims(id),
  position integer NOT NULL,
  order_id text NOT NULL REFERENCES orders(id),
  orderline_index integer NOT NULL,
  product_id text NOT NULL,
  image_id text,
  quantity integer NOT NULL CHECK (quantity > 0),
  claimcategory_id text NOT NULL REFERENCES claimcategories(id),
  replacement_quantity integer CHECK (replacement_quantity >= 0),
  refund_quantity integer CHECK (refund_quantity >= 0),
  rejection_quantity integer CHECK (rejection_quantity >= 0),
  decision_comment text,
  PRIMARY KEY (claim_id, position)
);
CREATE INDEX claimlines_orderline ON claimlines (order_id, orderline_index);

-- Uploaded evidence: unattached until a claim uses it (then claim_id is set, claim_position for a
-- line's evidence, null for a package-missing claim's own). The file is served under `token`.
CREATE TABLE evidence (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  claim_id text REFERENCES claims(id),
  claim_position integer,
  format text NOT NULL CHECK (format IN ('jpeg', 'png')),
  size integer NOT NULL,
  blob_key text NOT NULL,
  token text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  attached_at timestamptz
);
CREATE INDEX evidence_org ON evidence (organization_id, seq);
CREATE INDEX evidence_claim ON evidence (claim_id);

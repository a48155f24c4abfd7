-- Why an order due for production has not gone in yet. The release (PRODUCTION_RELEASE) writes one
-- row per held order and deletes it when the order goes into production; each release looks again,
-- so the order moves on by itself once the reason clears. `since` is when this reason first held it.
CREATE TABLE production_holds (
  order_id text PRIMARY KEY REFERENCES orders(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  reason text NOT NULL CHECK (reason IN ('insufficient_balance', 'preorder', 'out_of_stock', 'release_failed')),
  message text NOT NULL,
  since timestamptz NOT NULL,
  checked_at timestamptz NOT NULL
);

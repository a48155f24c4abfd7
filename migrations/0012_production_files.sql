-- Production files: a print-ready file per printable order line, made when the order goes
-- into production, and a packing slip and a shipping label per shipment, made when it ships. A row is
-- written `pending` in the transaction of the change and filled by a job (`production.*`).

CREATE TABLE print_files (
  order_id text NOT NULL REFERENCES orders(id),
  line_index integer NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  -- How many to print from the file: the line's quantity less what was canceled before production.
  copies integer NOT NULL CHECK (copies > 0),
  status text NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
  blob_key text,
  size integer,
  -- What the file holds: the artwork's pixels on the print area and the cut line's origin.
  details jsonb NOT NULL DEFAULT '{}',
  error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (order_id, line_index)
);

CREATE TABLE shipment_documents (
  shipment_id text NOT NULL REFERENCES shipments(id),
  kind text NOT NULL CHECK (kind IN ('packing_slip', 'shipping_label')),
  organization_id text NOT NULL REFERENCES organizations(id),
  status text NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
  blob_key text,
  size integer,
  error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (shipment_id, kind)
);

-- The factory floor's own step inside `in_production`: the operator marks an order produced (printed
-- and packed) and it moves to "ready to ship" in the fulfilment queue. The order status is unchanged.
CREATE TABLE produced_orders (
  order_id text PRIMARY KEY REFERENCES orders(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  produced_at timestamptz NOT NULL
);

CREATE INDEX orders_open_production ON orders (status_modified_at) WHERE status IN ('pending', 'preorder', 'in_production');
CREATE INDEX shipments_created ON shipments (created_at);

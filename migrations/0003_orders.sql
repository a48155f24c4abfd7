-- Orders, their lines and addresses, shipments. Callbacks are jobs (kind `order.callback`).

-- An address is immutable: a change creates a new row. It resolves through GET /addresses while an
-- order points at it or a shipment was created with it.
CREATE TABLE addresses (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  fields jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX addresses_org ON addresses (organization_id);

CREATE TABLE shipments (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  store_id text NOT NULL REFERENCES stores(id),
  shipping_kind text NOT NULL CHECK (shipping_kind IN ('dropship', 'combined')),
  level text NOT NULL CHECK (level IN ('basic', 'tracked', 'express')),
  address_id text NOT NULL REFERENCES addresses(id),
  carrier text,
  tracking_number text,
  -- the secret part of the public tracking page URL; null for basic (untracked) shipments
  tracking_token text UNIQUE,
  shipped_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX shipments_org ON shipments (organization_id, seq);
CREATE INDEX shipments_address ON shipments (address_id);

CREATE TABLE orders (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  store_id text NOT NULL REFERENCES stores(id),
  order_number integer NOT NULL,
  shipping_kind text NOT NULL CHECK (shipping_kind IN ('dropship', 'combined')),
  custom_identifier text,
  dropship_address_id text REFERENCES addresses(id),
  minimal_shipping_level text CHECK (minimal_shipping_level IN ('basic', 'tracked', 'express')),
  shipping_level text CHECK (shipping_level IN ('basic', 'tracked', 'express')),
  brand_id text REFERENCES brands(id),
  packaging_id text,
  status text NOT NULL CHECK (status IN ('pending', 'preorder', 'in_production', 'shipped', 'canceled')),
  status_modified_at timestamptz NOT NULL,
  shipping_cents integer NOT NULL DEFAULT 0,
  shipment_id text REFERENCES shipments(id),
  replacement_for_claim_id text,
  replaces_order_id text REFERENCES orders(id),
  via_store_code text,
  created_at timestamptz NOT NULL,
  CONSTRAINT orders_store_number UNIQUE (store_id, order_number),
  CONSTRAINT orders_custom_identifier UNIQUE (organization_id, custom_identifier)
);
CREATE INDEX orders_org ON orders (organization_id, seq);
CREATE INDEX orders_status ON orders (status) WHERE status = 'preorder';
CREATE INDEX orders_address ON orders (dropship_address_id);
CREATE INDEX orders_shipment ON orders (shipment_id);

CREATE TABLE orderlines (
  order_id text NOT NULL REFERENCES orders(id),
  line_index integer NOT NULL,
  product_id text NOT NULL,
  image_id text,
  quantity integer NOT NULL CHECK (quantity > 0),
  canceled_quantity integer NOT NULL DEFAULT 0 CHECK (canceled_quantity >= 0),
  shipped_quantity integer NOT NULL DEFAULT 0 CHECK (shipped_quantity >= 0),
  annotations jsonb NOT NULL DEFAULT '[]',
  unit_price_cents integer NOT NULL,
  unit_weight_grams integer NOT NULL,
  -- the product was prelaunched when ordered; cleared when it launches
  awaiting_launch boolean NOT NULL DEFAULT false,
  PRIMARY KEY (order_id, line_index),
  CHECK (canceled_quantity + shipped_quantity <= quantity)
);
CREATE INDEX orderlines_awaiting ON orderlines (product_id) WHERE awaiting_launch;

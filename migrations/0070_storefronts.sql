-- Storefront connections (Shopify stores), the inbox of their webhooks, the outbound operations
-- queue's visible state, published products and the privacy log. Orders keep the upstream
-- platform's order id and name; one upstream order is one order per store.

ALTER TABLE orders ADD COLUMN upstream_order_id text;
ALTER TABLE orders ADD COLUMN upstream_order_name text;
CREATE UNIQUE INDEX orders_upstream ON orders (store_id, upstream_order_id) WHERE upstream_order_id IS NOT NULL;

CREATE TABLE storefront_connections (
  store_id text PRIMARY KEY REFERENCES stores(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  platform text NOT NULL CHECK (platform IN ('shopify')),
  shop_domain text NOT NULL UNIQUE,
  -- The offline access token, AES-256-GCM sealed like webhook secrets; null for the demo shop.
  token_sealed text,
  scopes text NOT NULL DEFAULT '',
  status text NOT NULL CHECK (status IN ('connected', 'disconnected', 'demo')),
  fulfillment_service_id text,
  location_id text,
  connected_at timestamptz NOT NULL,
  disconnected_at timestamptz,
  -- The bucket Shopify last reported (extensions.cost.throttleStatus) and when calls may go again.
  throttle jsonb,
  paused_until timestamptz
);
CREATE INDEX storefront_connections_org ON storefront_connections (organization_id);

CREATE TABLE storefront_inbox (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  store_id text NOT NULL REFERENCES stores(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  -- X-Shopify-Event-Id (or X-Shopify-Webhook-Id): a redelivery carries the same one.
  delivery_key text NOT NULL,
  topic text NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL,
  processed_at timestamptz,
  outcome text,
  CONSTRAINT storefront_inbox_delivery UNIQUE (store_id, delivery_key)
);
CREATE INDEX storefront_inbox_store ON storefront_inbox (store_id, seq);

CREATE TABLE storefront_operations (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  store_id text NOT NULL REFERENCES stores(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  kind text NOT NULL,
  subject text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'done', 'failed', 'skipped')),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX storefront_operations_store ON storefront_operations (store_id, seq);
CREATE INDEX storefront_operations_failed ON storefront_operations (store_id) WHERE status = 'failed';

CREATE TABLE storefront_fulfillments (
  order_id text PRIMARY KEY REFERENCES orders(id),
  store_id text NOT NULL REFERENCES stores(id),
  fulfillment_order_ids text[] NOT NULL DEFAULT '{}',
  fulfillment_id text,
  last_event text
);

CREATE TABLE storefront_products (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  store_id text NOT NULL REFERENCES stores(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  image_id text NOT NULL,
  title text NOT NULL,
  price_cents integer NOT NULL CHECK (price_cents > 0),
  product_ids text[] NOT NULL,
  status text NOT NULL CHECK (status IN ('publishing', 'published', 'unpublishing', 'archived', 'failed')),
  upstream_product_id text,
  media jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT storefront_products_design UNIQUE (store_id, image_id)
);

CREATE TABLE storefront_privacy_log (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  store_id text NOT NULL REFERENCES stores(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  topic text NOT NULL,
  request jsonb NOT NULL,
  action text NOT NULL,
  created_at timestamptz NOT NULL
);

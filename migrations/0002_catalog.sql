-- Catalog (productgroups, products, media, warehouse items, packagings) and partner images.

CREATE TABLE productgroups (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  name text NOT NULL,
  price_cents integer NOT NULL CHECK (price_cents >= 0),
  private_organization_id text REFERENCES organizations(id),
  created_at timestamptz NOT NULL
);

CREATE TABLE items (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  sku text NOT NULL UNIQUE,
  logical_quantity integer NOT NULL DEFAULT 0,
  physical_quantity integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX items_org ON items (organization_id, seq);

CREATE TABLE products (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  productgroup_id text NOT NULL REFERENCES productgroups(id),
  item_id text REFERENCES items(id),
  name text NOT NULL,
  legacy_item_sku text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('announced', 'prelaunched', 'launched', 'sunsetted', 'ended', 'archived')),
  printable boolean NOT NULL,
  available_quantity integer NOT NULL DEFAULT 0,
  weight_grams integer NOT NULL DEFAULT 50,
  -- {widthMm, heightMm, widthPx, heightPx, dpi}; null for non-print products
  print_spec jsonb,
  -- [{name, filename}] of layer images stored as product media
  layers jsonb NOT NULL DEFAULT '[]',
  layers_modified timestamptz NOT NULL,
  print_modified timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX products_group ON products (productgroup_id);
CREATE INDEX products_item ON products (item_id);

CREATE TABLE product_media (
  product_id text NOT NULL REFERENCES products(id),
  filename text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('example_image', 'example_render', 'layer')),
  content_type text NOT NULL,
  blob_key text NOT NULL,
  etag text NOT NULL,
  size integer NOT NULL,
  modified_at timestamptz NOT NULL,
  PRIMARY KEY (product_id, filename)
);

CREATE TABLE packagings (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  name text NOT NULL,
  private_organization_id text REFERENCES organizations(id),
  created_at timestamptz NOT NULL
);

CREATE TABLE images (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  sha256 text NOT NULL,
  format text NOT NULL CHECK (format IN ('jpeg', 'png')),
  width integer NOT NULL,
  height integer NOT NULL,
  size integer NOT NULL,
  original_width integer,
  original_height integer,
  blob_key text NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (organization_id, sha256)
);
CREATE INDEX images_org ON images (organization_id, seq);

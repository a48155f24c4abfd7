-- Catalog (productgroups, products, media, warehouse items, packagings) and partner images.
-- Catalog rows carry a natural key too (code, sku, legacy SKU) so a catalog file can be re-applied.

CREATE TABLE productgroups (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  code text NOT NULL UNIQUE,
  name text NOT NULL,
  price_cents integer NOT NULL CHECK (price_cents >= 0),
  -- null: public; set: visible and orderable only for that organization
  private_organization_id text REFERENCES organizations(id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Warehouse stock. organization_id is set for stock a partner stores at the service (the only
-- items GET /items shows); null for the service's own blanks.
CREATE TABLE items (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text REFERENCES organizations(id),
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
  -- several products may share one item; availableQuantity is read live from it
  item_id text NOT NULL REFERENCES items(id),
  name text NOT NULL,
  legacy_item_sku text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('announced', 'prelaunched', 'launched', 'sunsetted', 'ended', 'archived')),
  printable boolean NOT NULL,
  weight_grams integer NOT NULL DEFAULT 50 CHECK (weight_grams >= 0),
  -- {widthMm, heightMm, widthPx, heightPx, dpi}; null for non-print products (and announced ones without a spec yet)
  print_spec jsonb,
  layers_modified timestamptz,
  print_modified timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX products_group ON products (productgroup_id);
CREATE INDEX products_item ON products (item_id);

-- Example images, example renders and print layer images of a product.
CREATE TABLE product_media (
  product_id text NOT NULL REFERENCES products(id),
  filename text NOT NULL,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('example_image', 'example_render', 'layer')),
  position integer NOT NULL DEFAULT 0,
  content_type text NOT NULL,
  blob_key text NOT NULL,
  sha256 text NOT NULL,
  size integer NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  modified_at timestamptz NOT NULL,
  PRIMARY KEY (product_id, filename),
  UNIQUE (product_id, kind, name)
);

CREATE TABLE packagings (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  code text NOT NULL UNIQUE,
  name text NOT NULL,
  private_organization_id text REFERENCES organizations(id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
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

-- Mockup rendering: scenes, perspectives, compositions (template assets + print-area geometry),
-- renders and the weekly rendertoken usage per organization.
-- `import_key` is the operator's own stable name for a row, so an import (and the demo seed) can
-- run twice without creating duplicates.

CREATE TABLE scenes (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  import_key text NOT NULL UNIQUE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  private_organization_id text REFERENCES organizations(id),
  allows_product_perspectives boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);

CREATE TABLE scene_productgroups (
  scene_id text NOT NULL REFERENCES scenes(id),
  productgroup_id text NOT NULL REFERENCES productgroups(id),
  PRIMARY KEY (scene_id, productgroup_id)
);
CREATE INDEX scene_productgroups_group ON scene_productgroups (productgroup_id);

CREATE TABLE perspectives (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  import_key text NOT NULL UNIQUE,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('scene', 'product')),
  width_px integer NOT NULL CHECK (width_px BETWEEN 16 AND 8000),
  height_px integer NOT NULL CHECK (height_px BETWEEN 16 AND 8000),
  format text NOT NULL CHECK (format IN ('png', 'jpeg', 'webp')),
  created_at timestamptz NOT NULL
);

CREATE TABLE scene_perspectives (
  scene_id text NOT NULL REFERENCES scenes(id),
  perspective_id text NOT NULL REFERENCES perspectives(id),
  PRIMARY KEY (scene_id, perspective_id)
);
CREATE INDEX scene_perspectives_perspective ON scene_perspectives (perspective_id);

CREATE TABLE product_perspectives (
  product_id text NOT NULL REFERENCES products(id),
  perspective_id text NOT NULL REFERENCES perspectives(id),
  PRIMARY KEY (product_id, perspective_id)
);
CREATE INDEX product_perspectives_perspective ON product_perspectives (perspective_id);

-- Print-area geometry is in pixels of the background image; rotation in degrees, clockwise,
-- about the print area's centre.
CREATE TABLE compositions (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  import_key text NOT NULL UNIQUE,
  scene_id text NOT NULL REFERENCES scenes(id),
  product_id text NOT NULL REFERENCES products(id),
  perspective_id text NOT NULL REFERENCES perspectives(id),
  token_cost integer NOT NULL CHECK (token_cost >= 0),
  background_blob_key text NOT NULL,
  mask_blob_key text NOT NULL,
  overlay_blob_key text,
  print_x integer NOT NULL,
  print_y integer NOT NULL,
  print_width integer NOT NULL CHECK (print_width > 0),
  print_height integer NOT NULL CHECK (print_height > 0),
  print_rotation double precision NOT NULL DEFAULT 0,
  unavailable_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (scene_id, product_id, perspective_id)
);

CREATE TABLE renders (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  composition_id text NOT NULL REFERENCES compositions(id),
  image_id text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed')),
  format text NOT NULL CHECK (format IN ('png', 'jpeg', 'webp')),
  thumbhash text,
  media_blob_key text,
  media_size integer,
  thumbnail_blob_key text,
  thumbnail_size integer,
  failure_reason text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  failed_at timestamptz,
  UNIQUE (organization_id, composition_id, image_id)
);
CREATE INDEX renders_org ON renders (organization_id, seq);

-- One row per organization and Amsterdam week (the Monday's local date); POST /renders deducts
-- with a conditional UPDATE on it, so concurrent requests cannot overspend.
CREATE TABLE rendertoken_usage (
  organization_id text NOT NULL REFERENCES organizations(id),
  week date NOT NULL,
  used integer NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (organization_id, week)
);

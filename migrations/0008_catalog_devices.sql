-- The phone models cases are made for: geometry drives print areas, layers and pictures.
CREATE TABLE devices (
  key text PRIMARY KEY,
  brand text NOT NULL,
  model text NOT NULL,
  release_date date NOT NULL,
  flagship boolean NOT NULL,
  -- the whole DeviceGeometry row as imported (body, camera, cutouts, colors, ...)
  geometry jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- What a productgroup sells (clear, tough, magsafe, leather, wallet); null for accessories.
ALTER TABLE productgroups ADD COLUMN case_type text;
-- The phone a product fits; null for products that fit none (chargers, straps).
ALTER TABLE products ADD COLUMN device_key text REFERENCES devices(key);
CREATE INDEX products_device ON products (device_key);

-- Catalog files applied with "apply once" (the demo seed on every start): digest of the file.
CREATE TABLE catalog_applied (
  digest text PRIMARY KEY,
  applied_at timestamptz NOT NULL
);

-- Product pictures: drawn from a product's geometry and material on first use and kept.
-- One row per drawn picture, by content key (subject + view + drawing version): products showing the
-- same thing share it, and a new drawing version simply draws new rows.
CREATE TABLE product_pictures (
  key text PRIMARY KEY,
  content_type text NOT NULL,
  blob_key text NOT NULL,
  sha256 text NOT NULL,
  size integer NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  created_at timestamptz NOT NULL
);

-- What a product's pictures show beyond its device and case type: an accessory kind and a colour.
ALTER TABLE products ADD COLUMN look jsonb;

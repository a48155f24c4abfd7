-- Mockup templates as real mockup generators keep them: a UV map that places the artwork,
-- one RGB layer image (mask, shading, highlight), a material, and the printable back in mm. The old
-- print-area columns stay for templates imported that way (converted to a UV map when rendered).
-- `generator` names a template drawn from the product's geometry on first use (then cached as blobs).
ALTER TABLE compositions
  ALTER COLUMN mask_blob_key DROP NOT NULL,
  ALTER COLUMN print_x DROP NOT NULL,
  ALTER COLUMN print_y DROP NOT NULL,
  ALTER COLUMN print_width DROP NOT NULL,
  ALTER COLUMN print_height DROP NOT NULL,
  ADD COLUMN uv_blob_key text,
  ADD COLUMN layers_blob_key text,
  ADD COLUMN material jsonb,
  ADD COLUMN back_mm jsonb,
  ADD COLUMN generator jsonb;

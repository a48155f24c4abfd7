-- Scenes a partner makes from a photo of their own: the scene row (private to the organization)
-- carries the name and perspectives as every scene does; this table keeps the photo (an uploaded
-- image of the organization) and the four corners, in pixels of the stored image, where the
-- case's back sits. A deleted scene keeps its rows (renders made in it stay readable) and is no
-- longer visible to anyone.
ALTER TABLE scenes ADD COLUMN deleted_at timestamptz;

CREATE TABLE photo_scenes (
  scene_id text PRIMARY KEY REFERENCES scenes(id),
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  image_id text NOT NULL,
  photo_blob_key text NOT NULL,
  width integer NOT NULL CHECK (width > 0),
  height integer NOT NULL CHECK (height > 0),
  corners jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX photo_scenes_org ON photo_scenes (organization_id, seq);

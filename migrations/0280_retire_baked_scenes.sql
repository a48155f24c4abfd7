-- The Blender-baked 3D scenes (scene-studio, scene-desk, scene-marble) are retired (decision 0294):
-- the service ships none of their template assets and draws no template of their kind ('scene').
-- Every composition of theirs is unavailable, so the partner API answers 410 composition_unavailable
-- for it and the scenes drop out of the listings; renders made in them stay readable. A fresh
-- database has no such composition (the demo seed makes none), so this changes nothing there.
UPDATE compositions SET unavailable_at = now() WHERE generator ->> 'kind' = 'scene' AND unavailable_at IS NULL;

-- Every photo scene offers each of its sizes (1000 px on the long edge, and 2000 px when the photo
-- has them) in WebP, JPEG and PNG, as a photo scene made through the API does (decision 0467).
-- This gives the photo scenes in the database the perspectives of that set they lack, with the
-- import keys, names and output sizes the API gives them, linked to their scene; compositions in
-- them are made on first lookup as for every photo scene perspective. A perspective whose import
-- key exists is left as it is, so the statements change nothing when run again. Deleted photo
-- scenes get none: nobody sees them. References are drawn as the API draws them: 26 lowercase
-- Crockford base32 characters from a cryptographic source (sha256 over two random UUIDs).
INSERT INTO perspectives (id, import_key, name, kind, width_px, height_px, format, created_at)
SELECT 'Perspective_' || ref.body,
       'photo-' || ps.scene_id || '-' || size.px || '-' || size.format,
       s.name || ', ' || size.px || ' px ' || upper(size.format),
       'scene',
       greatest(16, round(ps.width * size.px::numeric / greatest(ps.width, ps.height))::int),
       greatest(16, round(ps.height * size.px::numeric / greatest(ps.width, ps.height))::int),
       size.format,
       now()
FROM photo_scenes ps
JOIN scenes s ON s.id = ps.scene_id AND s.deleted_at IS NULL
CROSS JOIN (VALUES (1000, 'webp', 1), (1000, 'jpeg', 2), (1000, 'png', 3),
                   (2000, 'webp', 4), (2000, 'jpeg', 5), (2000, 'png', 6)) AS size(px, format, position)
CROSS JOIN LATERAL (
  SELECT sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()) || convert_to(ps.scene_id || size.px || size.format, 'UTF8')) AS bytes
) AS random
CROSS JOIN LATERAL (
  SELECT string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz', 1 + (get_byte(random.bytes, i) & 31), 1), '' ORDER BY i) AS body
  FROM generate_series(0, 25) AS i
) AS ref
WHERE size.px <= greatest(ps.width, ps.height)
ORDER BY ps.seq, size.position
ON CONFLICT (import_key) DO NOTHING;

INSERT INTO scene_perspectives (scene_id, perspective_id)
SELECT ps.scene_id, p.id
FROM photo_scenes ps
JOIN scenes s ON s.id = ps.scene_id AND s.deleted_at IS NULL
JOIN perspectives p ON starts_with(p.import_key, 'photo-' || ps.scene_id || '-')
ON CONFLICT DO NOTHING;

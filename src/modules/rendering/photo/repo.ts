import type { Executor } from '../../../platform/db/index.ts';
import type { Keyset } from '../../../platform/http/pagination.ts';
import type { Corners } from './homography.ts';

export interface PhotoSceneRow {
  scene_id: string;
  seq: number;
  organization_id: string;
  image_id: string;
  photo_blob_key: string;
  width: number;
  height: number;
  corners: Corners;
  created_at: Date;
}

/** A photo scene with its scene's name, as the organization sees it (deleted ones never). */
export type PhotoSceneView = PhotoSceneRow & { name: string };

const SELECT = `SELECT ps.*, s.name FROM photo_scenes ps JOIN scenes s ON s.id = ps.scene_id
  WHERE ps.organization_id = $1 AND s.deleted_at IS NULL`;

export const photoScenesRepo = {
  async insert(ex: Executor, r: Omit<PhotoSceneRow, 'seq'>): Promise<void> {
    await ex.query(
      `INSERT INTO photo_scenes (scene_id, organization_id, image_id, photo_blob_key, width, height, corners, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        r.scene_id,
        r.organization_id,
        r.image_id,
        r.photo_blob_key,
        r.width,
        r.height,
        JSON.stringify(r.corners),
        r.created_at,
      ],
    );
  },
  async byScene(ex: Executor, orgId: string, sceneId: string): Promise<PhotoSceneView | null> {
    return (await ex.query<PhotoSceneView>(`${SELECT} AND ps.scene_id = $2`, [orgId, sceneId]))[0] ?? null;
  },
  /** Newest first. */
  async page(ex: Executor, orgId: string, ks: Keyset): Promise<PhotoSceneView[]> {
    return ex.query<PhotoSceneView>(
      `${SELECT} AND ps.seq < COALESCE($2::bigint, 9223372036854775807) ORDER BY ps.seq DESC LIMIT $3`,
      [orgId, ks.after, ks.limit],
    );
  },
  /** Hides the scene from everyone and retires its compositions; renders made in it stay. */
  async markDeleted(ex: Executor, sceneId: string, at: Date): Promise<void> {
    await ex.query('UPDATE scenes SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL', [sceneId, at]);
    await ex.query('UPDATE compositions SET unavailable_at = $2 WHERE scene_id = $1 AND unavailable_at IS NULL', [
      sceneId,
      at,
    ]);
  },
  /** The productgroups a scene fits, copied from another scene's. */
  async productgroupsOfSceneKey(ex: Executor, key: string): Promise<string[]> {
    return (
      await ex.query<{ productgroup_id: string }>(
        `SELECT g.productgroup_id FROM scene_productgroups g JOIN scenes s ON s.id = g.scene_id
         WHERE s.import_key = $1 ORDER BY g.productgroup_id`,
        [key],
      )
    ).map((r) => r.productgroup_id);
  },
};

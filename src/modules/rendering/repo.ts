import type { Executor } from '../../platform/db/index.ts';
import type { Generator } from './generated.ts';
import type { Material, OutputFormat } from './renderer.ts';
import { renderRows } from './repo-renders.ts';

export interface SceneRow {
  id: string;
  seq: number;
  import_key: string;
  name: string;
  description: string;
  private_organization_id: string | null;
  allows_product_perspectives: boolean;
  created_at: Date;
  /** A deleted scene (a partner's photo scene) is visible to nobody. */
  deleted_at?: Date | null;
}
export interface PerspectiveRow {
  id: string;
  seq: number;
  import_key: string;
  name: string;
  kind: 'scene' | 'product';
  width_px: number;
  height_px: number;
  format: OutputFormat;
  created_at: Date;
}
export interface CompositionRow {
  id: string;
  seq: number;
  import_key: string;
  scene_id: string;
  product_id: string;
  perspective_id: string;
  token_cost: number;
  background_blob_key: string;
  /** Rectangle templates only, like overlay and print_*. */
  mask_blob_key: string | null;
  overlay_blob_key: string | null;
  print_x: number | null;
  print_y: number | null;
  print_width: number | null;
  print_height: number | null;
  print_rotation: number;
  uv_blob_key: string | null;
  layers_blob_key: string | null;
  material: Material | null;
  back_mm: [number, number] | null;
  /** A template drawn from the product's geometry on first use. */
  generator: Generator | null;
  unavailable_at: Date | null;
  created_at: Date;
}
export type { RenderRow } from './repo-renders.ts';

/** A scene is visible to everybody unless it is private to another organization or deleted. */
const VISIBLE = '((s.private_organization_id IS NULL OR s.private_organization_id = $1) AND s.deleted_at IS NULL)';
/**
 * A scene is listed unless every composition it has is unavailable (a retired scene): nothing
 * listed answers 410 to every lookup. Read by reference it stays visible, so a partner's stored
 * scene and perspective references resolve and their compositions answer 410.
 */
const LISTED = `(NOT EXISTS (SELECT 1 FROM compositions c WHERE c.scene_id = s.id)
  OR EXISTS (SELECT 1 FROM compositions c WHERE c.scene_id = s.id AND c.unavailable_at IS NULL))`;

export const renderingRepo = {
  // --- scenes ---
  /** The scenes an organization sees listed (LISTED), optionally those of a productgroup. */
  async scenes(ex: Executor, orgId: string, productgroupId: string | null): Promise<SceneRow[]> {
    return ex.query<SceneRow>(
      `SELECT s.* FROM scenes s WHERE ${VISIBLE} AND ${LISTED}
         AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM scene_productgroups g WHERE g.scene_id = s.id AND g.productgroup_id = $2))
       ORDER BY s.seq`,
      [orgId, productgroupId],
    );
  },
  async scene(ex: Executor, orgId: string, id: string): Promise<SceneRow | null> {
    return (
      (await ex.query<SceneRow>(`SELECT s.* FROM scenes s WHERE ${VISIBLE} AND s.id = $2`, [orgId, id]))[0] ?? null
    );
  },
  async sceneProductgroups(ex: Executor, sceneId: string): Promise<string[]> {
    return (
      await ex.query<{ productgroup_id: string }>(
        'SELECT productgroup_id FROM scene_productgroups WHERE scene_id = $1 ORDER BY productgroup_id',
        [sceneId],
      )
    ).map((r) => r.productgroup_id);
  },
  async scenePerspectiveIds(ex: Executor, sceneId: string): Promise<string[]> {
    return (
      await ex.query<{ id: string }>(
        'SELECT p.id FROM scene_perspectives sp JOIN perspectives p ON p.id = sp.perspective_id WHERE sp.scene_id = $1 ORDER BY p.seq',
        [sceneId],
      )
    ).map((r) => r.id);
  },

  // --- perspectives ---
  async perspective(ex: Executor, id: string): Promise<PerspectiveRow | null> {
    return (await ex.query<PerspectiveRow>('SELECT * FROM perspectives WHERE id = $1', [id]))[0] ?? null;
  },
  /** Scene perspectives of one scene visible to the organization, or of every scene it sees listed. */
  async scenePerspectives(ex: Executor, orgId: string, sceneId: string | null): Promise<PerspectiveRow[]> {
    return ex.query<PerspectiveRow>(
      `SELECT DISTINCT p.* FROM perspectives p
         JOIN scene_perspectives sp ON sp.perspective_id = p.id
         JOIN scenes s ON s.id = sp.scene_id
       WHERE ${VISIBLE} AND (s.id = $2 OR ($2::text IS NULL AND ${LISTED}))
       ORDER BY p.seq`,
      [orgId, sceneId],
    );
  },
  /** Product perspectives of the given products. */
  async productPerspectives(
    ex: Executor,
    productIds: string[],
  ): Promise<Array<PerspectiveRow & { product_id: string }>> {
    return ex.query(
      `SELECT p.*, pp.product_id FROM perspectives p JOIN product_perspectives pp ON pp.perspective_id = p.id
       WHERE pp.product_id = ANY($1::text[]) ORDER BY p.seq`,
      [productIds],
    );
  },
  async productsWithPerspectives(ex: Executor): Promise<string[]> {
    return (
      await ex.query<{ product_id: string }>('SELECT DISTINCT product_id FROM product_perspectives ORDER BY product_id')
    ).map((r) => r.product_id);
  },
  async perspectiveScenes(ex: Executor, orgId: string, perspectiveId: string): Promise<string[]> {
    return (
      await ex.query<{ id: string }>(
        `SELECT s.id FROM scene_perspectives sp JOIN scenes s ON s.id = sp.scene_id WHERE ${VISIBLE} AND sp.perspective_id = $2 ORDER BY s.seq`,
        [orgId, perspectiveId],
      )
    ).map((r) => r.id);
  },
  async perspectiveProducts(ex: Executor, perspectiveId: string): Promise<string[]> {
    return (
      await ex.query<{ product_id: string }>(
        'SELECT product_id FROM product_perspectives WHERE perspective_id = $1 ORDER BY product_id',
        [perspectiveId],
      )
    ).map((r) => r.product_id);
  },

  // --- compositions ---
  /** The available compositions of a product in scenes the organization sees, with each scene's name. */
  async productCompositions(ex: Executor, orgId: string, productId: string) {
    return ex.query<CompositionRow & { scene_name: string; perspective_name: string }>(
      `SELECT c.*, s.name AS scene_name, p.name AS perspective_name FROM compositions c
       JOIN scenes s ON s.id = c.scene_id JOIN perspectives p ON p.id = c.perspective_id
       WHERE ${VISIBLE} AND c.product_id = $2 AND c.unavailable_at IS NULL ORDER BY c.seq`,
      [orgId, productId],
    );
  },
  async composition(ex: Executor, id: string): Promise<CompositionRow | null> {
    return (await ex.query<CompositionRow>('SELECT * FROM compositions WHERE id = $1', [id]))[0] ?? null;
  },
  async compositionFor(
    ex: Executor,
    sceneId: string,
    productId: string,
    perspectiveId: string,
  ): Promise<CompositionRow | null> {
    return (
      (
        await ex.query<CompositionRow>(
          'SELECT * FROM compositions WHERE scene_id = $1 AND product_id = $2 AND perspective_id = $3',
          [sceneId, productId, perspectiveId],
        )
      )[0] ?? null
    );
  },

  // --- import (operator, seed) ---
  async sceneByKey(ex: Executor, key: string): Promise<SceneRow | null> {
    return (await ex.query<SceneRow>('SELECT * FROM scenes WHERE import_key = $1', [key]))[0] ?? null;
  },
  async upsertScene(ex: Executor, s: Omit<SceneRow, 'seq'>): Promise<string> {
    const rows = await ex.query<{ id: string }>(
      `INSERT INTO scenes (id, import_key, name, description, private_organization_id, allows_product_perspectives, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (import_key) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
         private_organization_id = EXCLUDED.private_organization_id, allows_product_perspectives = EXCLUDED.allows_product_perspectives
       RETURNING id`,
      [
        s.id,
        s.import_key,
        s.name,
        s.description,
        s.private_organization_id,
        s.allows_product_perspectives,
        s.created_at,
      ],
    );
    return rows[0].id;
  },
  async setSceneProductgroups(ex: Executor, sceneId: string, productgroupIds: string[]): Promise<void> {
    await ex.query('DELETE FROM scene_productgroups WHERE scene_id = $1', [sceneId]);
    for (const g of productgroupIds)
      await ex.query(
        'INSERT INTO scene_productgroups (scene_id, productgroup_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [sceneId, g],
      );
  },
  async addSceneProductgroup(ex: Executor, sceneId: string, productgroupId: string): Promise<void> {
    await ex.query(
      'INSERT INTO scene_productgroups (scene_id, productgroup_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [sceneId, productgroupId],
    );
  },
  async perspectiveByKey(ex: Executor, key: string): Promise<PerspectiveRow | null> {
    return (await ex.query<PerspectiveRow>('SELECT * FROM perspectives WHERE import_key = $1', [key]))[0] ?? null;
  },
  async upsertPerspective(ex: Executor, p: Omit<PerspectiveRow, 'seq'>): Promise<string> {
    const rows = await ex.query<{ id: string }>(
      `INSERT INTO perspectives (id, import_key, name, kind, width_px, height_px, format, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (import_key) DO UPDATE SET name = EXCLUDED.name, width_px = EXCLUDED.width_px, height_px = EXCLUDED.height_px, format = EXCLUDED.format
       RETURNING id, kind`,
      [p.id, p.import_key, p.name, p.kind, p.width_px, p.height_px, p.format, p.created_at],
    );
    return rows[0].id;
  },
  async linkPerspective(
    ex: Executor,
    perspectiveId: string,
    links: { sceneIds: string[]; productIds: string[] },
  ): Promise<void> {
    for (const s of links.sceneIds)
      await ex.query(
        'INSERT INTO scene_perspectives (scene_id, perspective_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [s, perspectiveId],
      );
    for (const p of links.productIds)
      await ex.query(
        'INSERT INTO product_perspectives (product_id, perspective_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [p, perspectiveId],
      );
  },
  async compositionByKey(ex: Executor, key: string): Promise<CompositionRow | null> {
    return (await ex.query<CompositionRow>('SELECT * FROM compositions WHERE import_key = $1', [key]))[0] ?? null;
  },
  async upsertComposition(ex: Executor, c: Omit<CompositionRow, 'seq'>): Promise<string> {
    const rows = await ex.query<{ id: string }>(
      `INSERT INTO compositions (id, import_key, scene_id, product_id, perspective_id, token_cost, background_blob_key, mask_blob_key, overlay_blob_key,
         print_x, print_y, print_width, print_height, print_rotation, unavailable_at, created_at,
         uv_blob_key, layers_blob_key, material, back_mm, generator)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
       ON CONFLICT (import_key) DO UPDATE SET token_cost = EXCLUDED.token_cost, background_blob_key = EXCLUDED.background_blob_key,
         mask_blob_key = EXCLUDED.mask_blob_key, overlay_blob_key = EXCLUDED.overlay_blob_key, print_x = EXCLUDED.print_x, print_y = EXCLUDED.print_y,
         print_width = EXCLUDED.print_width, print_height = EXCLUDED.print_height, print_rotation = EXCLUDED.print_rotation,
         unavailable_at = EXCLUDED.unavailable_at, uv_blob_key = EXCLUDED.uv_blob_key, layers_blob_key = EXCLUDED.layers_blob_key,
         material = EXCLUDED.material, back_mm = EXCLUDED.back_mm, generator = EXCLUDED.generator
       RETURNING id`,
      [
        c.id,
        c.import_key,
        c.scene_id,
        c.product_id,
        c.perspective_id,
        c.token_cost,
        c.background_blob_key,
        c.mask_blob_key,
        c.overlay_blob_key,
        c.print_x,
        c.print_y,
        c.print_width,
        c.print_height,
        c.print_rotation,
        c.unavailable_at,
        c.created_at,
        c.uv_blob_key,
        c.layers_blob_key,
        c.material === null ? null : JSON.stringify(c.material),
        c.back_mm === null ? null : JSON.stringify(c.back_mm),
        c.generator === null ? null : JSON.stringify(c.generator),
      ],
    );
    return rows[0].id;
  },
  async setCompositionUnavailable(ex: Executor, id: string, at: Date | null): Promise<boolean> {
    return (
      (await ex.query('UPDATE compositions SET unavailable_at = $2 WHERE id = $1 RETURNING id', [id, at])).length === 1
    );
  },

  ...renderRows,
};

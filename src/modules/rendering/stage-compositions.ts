import { isReference, newReference } from '../../platform/ids.ts';
import type { RenderingDeps } from './deps.ts';
import type { Generator } from './generated.ts';
import type { PerspectiveImport, SceneImport } from './import.ts';
import { type CompositionRow, type PerspectiveRow, type SceneRow, renderingRepo as repo } from './repo.ts';
import { STAGES } from './stage/stages.ts';

/**
 * The 3D stages as scenes, perspectives and compositions. Their compositions are not listed one by
 * one: every product with device geometry and a case type has one in every stage view and size,
 * made when first asked for, so a model imported today has its 3D mockups today.
 */
export const STAGE_SIZES = [1000, 2000].flatMap((px) =>
  (['webp', 'jpeg', 'png'] as const).map((format) => ({ px, format })),
);

export const stageSceneKey = (stage: string) => `stage-${stage}`;
export const stagePerspectiveKey = (stage: string, view: string, px: number, format: string) =>
  `stage-${stage}-${view}-${px}-${format}`;
/** Rendertokens of a stage composition: a 2000 px perspective costs more than a 1000 px one. */
export const stageTokenCost = (px: number) => (px > 1000 ? 4 : 3);

/** The stage scenes and perspectives, compatible with the given case productgroups. */
export function stageImport(caseGroups: string[]): { scenes: SceneImport[]; perspectives: PerspectiveImport[] } {
  const scenes: SceneImport[] = [];
  const perspectives: PerspectiveImport[] = [];
  for (const st of STAGES) {
    scenes.push({
      key: stageSceneKey(st.key),
      name: st.name,
      description: st.description,
      compatibleProductgroupReferences: caseGroups,
    });
    for (const view of st.views)
      for (const s of STAGE_SIZES)
        perspectives.push({
          key: stagePerspectiveKey(st.key, view.key, s.px, s.format),
          name: `${st.name}, ${view.name}, ${s.px} px ${s.format.toUpperCase()}`,
          output: { widthPx: s.px, heightPx: s.px, format: s.format },
          sceneKeys: [stageSceneKey(st.key)],
        });
  }
  return { scenes, perspectives };
}

export const isStageScene = (scene: SceneRow) => STAGES.some((st) => scene.import_key === stageSceneKey(st.key));

/** The stage and view a stage perspective renders, or null for any other perspective. */
function stageOf(scene: SceneRow, perspective: PerspectiveRow) {
  for (const st of STAGES) {
    if (scene.import_key !== stageSceneKey(st.key)) continue;
    for (const view of st.views)
      for (const s of STAGE_SIZES)
        if (perspective.import_key === stagePerspectiveKey(st.key, view.key, s.px, s.format))
          return { stage: st.key, view: view.key, px: s.px };
  }
  return null;
}

/**
 * The composition of a product in a stage perspective, made now if the product has geometry and a
 * case type and none exists yet; null when the combination is not a stage one. The product's
 * productgroup joins the stage's compatible productgroups (a productgroup imported later).
 */
export async function stageComposition(
  deps: RenderingDeps,
  scene: SceneRow,
  productRef: string,
  perspective: PerspectiveRow,
  productgroupRef: string | null,
): Promise<CompositionRow | null> {
  const at = stageOf(scene, perspective);
  if (!at || !isReference('Product', productRef)) return null;
  if (!(await repo.scenePerspectiveIds(deps.db, scene.id)).includes(perspective.id)) return null;
  const shape = (await deps.catalog.productShapes([productRef])).get(productRef);
  if (!shape?.device || !shape.caseType) return null;
  const generator = { kind: 'stage' as const, stage: at.stage, view: at.view };
  return madeOnLookup(
    deps,
    { scene, productRef, perspective, productgroupRef },
    stageTokenCost(at.px),
    generator,
    generator,
  );
}

/**
 * Writes the composition of a product in a scene whose templates are drawn at run time (a stage, a
 * partner's photo scene) and returns it; the product's productgroup joins the scene's.
 */
export async function madeOnLookup(
  deps: RenderingDeps,
  at: { scene: SceneRow; productRef: string; perspective: PerspectiveRow; productgroupRef: string | null },
  tokenCost: number,
  generator: Generator,
  /** What the background key names (the template is drawn, not stored under it). */
  drawnFrom: Record<string, string>,
): Promise<CompositionRow | null> {
  const { scene, productRef, perspective, productgroupRef } = at;
  const now = deps.clock.now();
  await deps.db.tx(async (tx) => {
    if (productgroupRef) await repo.addSceneProductgroup(tx, scene.id, productgroupRef);
    await repo.upsertComposition(tx, {
      id: newReference('Composition'),
      import_key: `${perspective.import_key}-${productRef}`,
      scene_id: scene.id,
      product_id: productRef,
      perspective_id: perspective.id,
      token_cost: tokenCost,
      background_blob_key: `generated:${JSON.stringify(drawnFrom)}`,
      mask_blob_key: null,
      overlay_blob_key: null,
      print_x: null,
      print_y: null,
      print_width: null,
      print_height: null,
      print_rotation: 0,
      uv_blob_key: null,
      layers_blob_key: null,
      material: null,
      back_mm: null,
      generator,
      unavailable_at: null,
      created_at: now,
    });
  });
  return repo.compositionFor(deps.db, scene.id, productRef, perspective.id);
}

import { ApiError, mustFind, notFound } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { RenderingDeps } from './deps.ts';
import { type SceneRow, renderingRepo as repo } from './repo.ts';
import { isStageScene } from './stage-compositions.ts';
import { isPhotoScene } from './photo/scenes.ts';

/** Turns the catalog's 404 into `false`; anything else is a real error. */
async function visible(check: () => Promise<unknown>): Promise<unknown | null> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** The productgroup of a catalog product, whichever shape (API view or row) the catalog returns. */
export function productgroupOf(product: unknown): string | null {
  const p = (product ?? {}) as Record<string, unknown>;
  const inner = (p.product ?? p) as Record<string, unknown>;
  const ref =
    inner.productgroupReference ??
    inner.productgroup_id ??
    (inner.productgroup as Record<string, unknown> | undefined)?.reference;
  return typeof ref === 'string' ? ref : null;
}

/**
 * What an organization may see of the catalog and the scenes: visible products and productgroups,
 * its scenes, and which products a scene takes.
 */
export function libraryAccess(deps: RenderingDeps) {
  const { db, catalog } = deps;

  const product = async (orgId: string, ref: string) =>
    isReference('Product', ref) ? visible(() => catalog.visibleProduct(orgId, ref)) : null;
  const productgroupVisible = async (orgId: string, ref: string) =>
    isReference('Productgroup', ref) && (await visible(() => catalog.visibleProductgroup(orgId, ref))) !== null;

  async function sceneRow(orgId: string, ref: string): Promise<SceneRow> {
    return mustFind(isReference('Scene', ref) ? await repo.scene(db, orgId, ref) : null, 'Scene', ref);
  }
  async function productOrThrow(orgId: string, ref: string) {
    const p = await product(orgId, ref);
    if (p === null) throw notFound('Product', ref);
    return p;
  }
  /**
   * A product may be used in a scene when its productgroup is one of the scene's; in a 3D stage or
   * a partner's photo scene, every product with device geometry and a case type may.
   */
  async function compatible(scene: SceneRow, productView: unknown): Promise<boolean> {
    const group = productgroupOf(productView);
    if (group !== null && (await repo.sceneProductgroups(db, scene.id)).includes(group)) return true;
    if (!isStageScene(scene) && !isPhotoScene(scene)) return false;
    const ref = ((productView ?? {}) as { reference?: unknown }).reference;
    if (typeof ref !== 'string') return false;
    const shape = (await catalog.productShapes([ref])).get(ref);
    return Boolean(shape?.device && shape.caseType);
  }
  /** Products (among `ids`) visible to the organization. */
  async function visibleProducts(orgId: string, ids: string[]): Promise<Map<string, unknown>> {
    const out = new Map<string, unknown>();
    for (const id of ids) {
      const p = await product(orgId, id);
      if (p !== null) out.set(id, p);
    }
    return out;
  }

  return { product, productgroupVisible, sceneRow, productOrThrow, compatible, visibleProducts };
}

import { ApiError, mustFind, notFound } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { RenderingDeps } from './deps.ts';
import { type CompositionRow, type PerspectiveRow, renderingRepo as repo } from './repo.ts';
import { stageComposition } from './stage-compositions.ts';
import { photoComposition } from './photo/scenes.ts';
import { libraryAccess, productgroupOf } from './library-access.ts';

const refs = (ids: string[]) => ids.map((reference) => ({ reference }));

export const toPerspectiveOutput = (p: PerspectiveRow) => ({
  widthPx: p.width_px,
  heightPx: p.height_px,
  format: p.format,
});

export const toComposition = (c: CompositionRow) => ({
  reference: c.id,
  tokenCost: c.token_cost,
  sceneReference: c.scene_id,
  productReference: c.product_id,
  perspectiveReference: c.perspective_id,
});

export const unavailable = (c: CompositionRow) =>
  new ApiError(
    'composition_unavailable',
    `Composition ${c.id} is no longer available; look up another composition for this scene and product`,
  );

/**
 * Perspectives usable for a scene and/or product: a scene's own, plus the products' own when the
 * scene allows product perspectives; for a product alone, its own plus those of the scenes it fits
 * in; for neither, every one the organization may see. May hold one twice.
 */
async function perspectiveRows(
  { db }: RenderingDeps,
  access: ReturnType<typeof libraryAccess>,
  orgId: string,
  q: { sceneReference?: string; productReference?: string },
): Promise<PerspectiveRow[]> {
  const { sceneRow, productOrThrow, compatible, visibleProducts } = access;
  const scene = q.sceneReference !== undefined ? await sceneRow(orgId, q.sceneReference) : null;
  const prod = q.productReference !== undefined ? await productOrThrow(orgId, q.productReference) : null;
  let rows: PerspectiveRow[] = [];
  if (scene && prod !== null) {
    if (await compatible(scene, prod)) {
      rows = await repo.scenePerspectives(db, orgId, scene.id);
      if (scene.allows_product_perspectives) rows.push(...(await repo.productPerspectives(db, [q.productReference!])));
    }
  } else if (scene) {
    rows = await repo.scenePerspectives(db, orgId, scene.id);
    if (scene.allows_product_perspectives) {
      const candidates = await visibleProducts(orgId, await repo.productsWithPerspectives(db));
      const fitting: string[] = [];
      for (const [id, view] of candidates) if (await compatible(scene, view)) fitting.push(id);
      rows.push(...(await repo.productPerspectives(db, fitting)));
    }
  } else if (prod !== null) {
    const group = productgroupOf(prod);
    const scenes = group ? await repo.scenes(db, orgId, group) : [];
    for (const s of scenes) rows.push(...(await repo.scenePerspectives(db, orgId, s.id)));
    rows.push(...(await repo.productPerspectives(db, [q.productReference!])));
  } else {
    rows = await repo.scenePerspectives(db, orgId, null);
    const products = await visibleProducts(orgId, await repo.productsWithPerspectives(db));
    rows.push(...(await repo.productPerspectives(db, [...products.keys()])));
  }
  return rows;
}

/**
 * The read side of scenes, perspectives and compositions. What an organization sees: public scenes
 * and its own private ones, and only products and productgroups the catalog shows it.
 */
export function renderingLibrary(deps: RenderingDeps) {
  const { db } = deps;

  const access = libraryAccess(deps);
  const { product, productgroupVisible, sceneRow, productOrThrow, visibleProducts } = access;

  const lib = {
    sceneRow,

    async listScenes(orgId: string, q: { productgroupReference?: string }) {
      if (q.productgroupReference !== undefined && !(await productgroupVisible(orgId, q.productgroupReference)))
        throw notFound('Productgroup', q.productgroupReference);
      const rows = await repo.scenes(db, orgId, q.productgroupReference ?? null);
      return { scenes: rows.map((s) => ({ reference: s.id, name: s.name })), nextCursor: null };
    },

    async scene(orgId: string, ref: string) {
      const s = await sceneRow(orgId, ref);
      const groups: string[] = [];
      for (const g of await repo.sceneProductgroups(db, s.id)) if (await productgroupVisible(orgId, g)) groups.push(g);
      return {
        reference: s.id,
        name: s.name,
        description: s.description,
        private: s.private_organization_id !== null,
        allowsProductPerspectives: s.allows_product_perspectives,
        compatibleProductgroups: refs(groups),
        perspectives: refs(await repo.scenePerspectiveIds(db, s.id)),
      };
    },

    /** The perspectives usable for a scene and/or product (perspectiveRows), each once. */
    async listPerspectives(orgId: string, q: { sceneReference?: string; productReference?: string }) {
      const rows = await perspectiveRows(deps, access, orgId, q);
      const seen = new Set<string>();
      const unique = rows.filter((p) => !seen.has(p.id) && seen.add(p.id));
      const perspectives = [];
      for (const p of unique) perspectives.push(await lib.describePerspective(orgId, p));
      return { perspectives, nextCursor: null };
    },

    async describePerspective(orgId: string, p: PerspectiveRow) {
      const scenes = p.kind === 'scene' ? refs(await repo.perspectiveScenes(db, orgId, p.id)) : null;
      const products =
        p.kind === 'product'
          ? refs([...(await visibleProducts(orgId, await repo.perspectiveProducts(db, p.id))).keys()])
          : null;
      return { reference: p.id, name: p.name, output: toPerspectiveOutput(p), scenes, products };
    },

    async perspective(orgId: string, ref: string) {
      const p = mustFind(isReference('Perspective', ref) ? await repo.perspective(db, ref) : null, 'Perspective', ref);
      const out = await lib.describePerspective(orgId, p);
      // Visible only through a scene or product the organization can see.
      if ((out.scenes ?? out.products ?? []).length === 0) throw notFound('Perspective', ref);
      return out;
    },

    /** A composition the organization may see (its scene and product are visible); 410 when retired. */
    async visibleComposition(orgId: string, ref: string): Promise<CompositionRow> {
      const c = isReference('Composition', ref) ? await repo.composition(db, ref) : null;
      if (!c || !(await repo.scene(db, orgId, c.scene_id)) || (await product(orgId, c.product_id)) === null)
        throw notFound('Composition', ref);
      if (c.unavailable_at) throw unavailable(c);
      return c;
    },

    async composition(orgId: string, ref: string) {
      return toComposition(await lib.visibleComposition(orgId, ref));
    },

    async lookupComposition(
      orgId: string,
      q: { sceneReference: string; productReference: string; perspectiveReference: string },
    ) {
      const scene = await sceneRow(orgId, q.sceneReference);
      const prod = await productOrThrow(orgId, q.productReference);
      const perspective = isReference('Perspective', q.perspectiveReference)
        ? await repo.perspective(db, q.perspectiveReference)
        : null;
      if (!perspective) throw notFound('Perspective', q.perspectiveReference);
      const c =
        (await repo.compositionFor(db, scene.id, q.productReference, q.perspectiveReference)) ??
        (await stageComposition(deps, scene, q.productReference, perspective, productgroupOf(prod))) ??
        (await photoComposition(deps, orgId, scene, q.productReference, perspective, productgroupOf(prod)));
      if (!c) throw new ApiError('not_found', 'No composition exists for this scene, product and perspective');
      if (c.unavailable_at) throw unavailable(c);
      return { reference: c.id, tokenCost: c.token_cost };
    },
  };
  return lib;
}

import { ApiError, badRequest, mustFind, notFound } from '../../../platform/errors.ts';
import { isReference, newReference } from '../../../platform/ids.ts';
import { type PageRequest, listPage } from '../../../platform/http/pagination.ts';
import type { RenderingDeps } from '../deps.ts';
import { type CompositionRow, type PerspectiveRow, type SceneRow, renderingRepo as repo } from '../repo.ts';
import { madeOnLookup, stageSceneKey, stageTokenCost } from '../stage-compositions.ts';
import { type Corners, cornerProblem } from './homography.ts';
import { type PhotoSceneView, photoScenesRepo as photos } from './repo.ts';

/**
 * A partner's own photo as a private scene of its organization: the photo (an uploaded image) and
 * the four corners where the case's back sits. Every product with device geometry and a case type
 * has a composition in it, made when first looked up, as in the 3D stages.
 */

/**
 * The perspectives a photo scene offers, in WebP, JPEG and PNG: its long edge at 1000 px, and at
 * 2000 px when the photo has them.
 */
const PHOTO_SIZES = [
  { px: 1000, format: 'webp' as const },
  { px: 1000, format: 'jpeg' as const },
  { px: 1000, format: 'png' as const },
  { px: 2000, format: 'webp' as const },
  { px: 2000, format: 'jpeg' as const },
  { px: 2000, format: 'png' as const },
];
export const MIN_PHOTO_EDGE = PHOTO_SIZES[0].px;
const sizeRank = (o: { widthPx: number; heightPx: number; format: string }) =>
  PHOTO_SIZES.findIndex((s) => s.px === Math.max(o.widthPx, o.heightPx) && s.format === o.format);

const sceneKey = (sceneId: string) => `photo-${sceneId}`;
const perspectiveKey = (sceneId: string, px: number, format: string) => `photo-${sceneId}-${px}-${format}`;
export const isPhotoScene = (scene: SceneRow) => scene.import_key.startsWith('photo-');

export interface NamedCorners {
  topLeft: { x: number; y: number };
  topRight: { x: number; y: number };
  bottomRight: { x: number; y: number };
  bottomLeft: { x: number; y: number };
}
const ORDER = ['topLeft', 'topRight', 'bottomRight', 'bottomLeft'] as const;
const toCorners = (c: NamedCorners) => ORDER.map((k) => [c[k].x, c[k].y]) as Corners;
const toNamed = (c: Corners) =>
  Object.fromEntries(ORDER.map((k, i) => [k, { x: c[i][0], y: c[i][1] }])) as unknown as NamedCorners;

/** The output size of a perspective with this long edge, at the photo's aspect. */
const outputOf = (w: number, h: number, px: number) => {
  const k = px / Math.max(w, h);
  return { widthPx: Math.max(16, Math.round(w * k)), heightPx: Math.max(16, Math.round(h * k)) };
};

export function photoScenes(deps: RenderingDeps) {
  const { db, clock, cursors } = deps;

  async function view(row: PhotoSceneView) {
    const perspectives: Array<{ reference: string; output: ReturnType<typeof outputOf> & { format: string } }> = [];
    for (const id of await repo.scenePerspectiveIds(db, row.scene_id)) {
      const p = (await repo.perspective(db, id))!;
      perspectives.push({ reference: p.id, output: { widthPx: p.width_px, heightPx: p.height_px, format: p.format } });
    }
    // In the order of PHOTO_SIZES: a scene given some of its formats later (migration 0290) lists
    // them as a scene made with all of them does.
    perspectives.sort((a, b) => sizeRank(a.output) - sizeRank(b.output));
    return {
      reference: row.scene_id,
      name: row.name,
      imageReference: row.image_id,
      photo: { widthPx: row.width, heightPx: row.height },
      corners: toNamed(row.corners),
      perspectives,
      created: row.created_at.toISOString(),
    };
  }

  async function found(orgId: string, ref: string) {
    return mustFind(isReference('Scene', ref) ? await photos.byScene(db, orgId, ref) : null, 'Photo scene', ref);
  }

  return {
    async create(orgId: string, input: { name: string; imageReference: string; corners: NamedCorners }) {
      const image = await deps.images.imageForOrganization(orgId, input.imageReference);
      if (!image) throw notFound('Image', input.imageReference);
      if (Math.max(image.width, image.height) < MIN_PHOTO_EDGE)
        throw badRequest(
          `the photo is ${image.width}x${image.height} px; a photo scene needs at least ${MIN_PHOTO_EDGE} px on the long edge`,
          'photo_scene_photo_too_small',
        );
      const corners = toCorners(input.corners);
      const problem = cornerProblem(corners, image.width, image.height);
      if (problem) throw new ApiError(problem.code, problem.message);
      const name = input.name.trim();
      if (!name) throw badRequest('name must not be blank');
      const id = newReference('Scene');
      const now = clock.now();
      await db.tx(async (tx) => {
        await repo.upsertScene(tx, {
          id,
          import_key: sceneKey(id),
          name,
          description: `${name}: your own photo, the case placed where you marked it`,
          private_organization_id: orgId,
          allows_product_perspectives: false,
          created_at: now,
        });
        // The productgroups the 3D stages fit: every case with device geometry.
        await repo.setSceneProductgroups(tx, id, await photos.productgroupsOfSceneKey(tx, stageSceneKey('studio')));
        await photos.insert(tx, {
          scene_id: id,
          organization_id: orgId,
          image_id: image.reference,
          photo_blob_key: image.blobKey,
          width: image.width,
          height: image.height,
          corners,
          created_at: now,
        });
        for (const s of PHOTO_SIZES) {
          if (s.px > Math.max(image.width, image.height)) continue;
          const out = outputOf(image.width, image.height, s.px);
          const pid = await repo.upsertPerspective(tx, {
            id: newReference('Perspective'),
            import_key: perspectiveKey(id, s.px, s.format),
            name: `${name}, ${s.px} px ${s.format.toUpperCase()}`,
            kind: 'scene',
            width_px: out.widthPx,
            height_px: out.heightPx,
            format: s.format,
            created_at: now,
          });
          await repo.linkPerspective(tx, pid, { sceneIds: [id], productIds: [] });
        }
      });
      return view((await photos.byScene(db, orgId, id))!);
    },

    async get(orgId: string, ref: string) {
      return view(await found(orgId, ref));
    },

    async list(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'photoScenes',
        load: (ks) => photos.page(db, orgId, ks),
        items: async (rows) => Promise.all(rows.map(view)),
      });
    },

    /** Nobody sees the scene afterwards; its compositions are retired; renders made in it stay. */
    async remove(orgId: string, ref: string) {
      const row = await found(orgId, ref);
      await db.tx((tx) => photos.markDeleted(tx, row.scene_id, clock.now()));
      return { reference: row.scene_id, deleted: true as const };
    },
  };
}

/**
 * The composition of a product in a photo scene's perspective, made now if the product has
 * geometry and a case type; null when the combination is not a photo scene's.
 */
export async function photoComposition(
  deps: RenderingDeps,
  orgId: string,
  scene: SceneRow,
  productRef: string,
  perspective: PerspectiveRow,
  productgroupRef: string | null,
): Promise<CompositionRow | null> {
  if (!isPhotoScene(scene) || !isReference('Product', productRef)) return null;
  if (!(await repo.scenePerspectiveIds(deps.db, scene.id)).includes(perspective.id)) return null;
  const photo = await photos.byScene(deps.db, orgId, scene.id);
  const shape = (await deps.catalog.productShapes([productRef])).get(productRef);
  if (!photo || !shape?.device || !shape.caseType) return null;
  const generator = {
    kind: 'photo' as const,
    photo: photo.photo_blob_key,
    width: photo.width,
    height: photo.height,
    corners: photo.corners,
  };
  return madeOnLookup(
    deps,
    { scene, productRef, perspective, productgroupRef },
    stageTokenCost(Math.max(perspective.width_px, perspective.height_px)),
    generator,
    { kind: 'photo', scene: scene.id },
  );
}

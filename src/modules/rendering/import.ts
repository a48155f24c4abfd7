import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { type Executor, pgErrorCode } from '../../platform/db/index.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { RenderingDeps } from './deps.ts';
import type { Generator } from './generated.ts';
import type { Material, PrintArea } from './renderer.ts';
import { checkPrintArea } from './templates.ts';
import { stage } from './stage/stages.ts';
import { renderingRepo as repo } from './repo.ts';

export interface SceneImport {
  key: string;
  name: string;
  description?: string;
  privateOrganizationReference?: string | null;
  allowsProductPerspectives?: boolean;
  compatibleProductgroupReferences: string[];
}
export interface PerspectiveImport {
  key: string;
  name: string;
  output: { widthPx: number; heightPx: number; format: 'png' | 'jpeg' | 'webp' };
  sceneKeys?: string[];
  productReferences?: string[];
}
export interface CompositionImport {
  key: string;
  sceneKey: string;
  productReference: string;
  perspectiveKey: string;
  tokenCost: number;
  available?: boolean;
  template: TemplateImport;
}
/** A rectangle template, a UV-mapped one, or one the service draws from the product. */
export type TemplateImport =
  | { background: Buffer; mask: Buffer; overlay?: Buffer | null; printArea: PrintArea }
  | { background: Buffer; uv: Buffer; layers: Buffer; material: Material; backMm: [number, number] }
  | { generate: Generator };
export interface RenderingImport {
  scenes?: SceneImport[];
  perspectives?: PerspectiveImport[];
  compositions?: CompositionImport[];
}

const PG_FOREIGN_KEY_VIOLATION = '23503';

/** Decodes an asset (any format sharp reads, SVG included) and stores it as PNG under its digest. */
async function storeAsset(
  deps: RenderingDeps,
  field: string,
  data: Buffer,
  opts: { depth16?: boolean } = {},
): Promise<{ key: string; width: number; height: number }> {
  let png: Buffer;
  let info: { width: number; height: number };
  try {
    const img = sharp(data);
    // A UV map keeps its 16 bits: 8 bits place the artwork to 1/256 of the back, visibly stepped.
    const out = await (opts.depth16 ? img.toColourspace('rgb16') : img).png().toBuffer({ resolveWithObject: true });
    png = out.data;
    info = out.info;
  } catch {
    throw badRequest(`${field} is not an image (PNG, JPEG, WebP or SVG)`);
  }
  const key = `rendering/templates/${createHash('sha256').update(png).digest('hex')}.png`;
  if (!(await deps.blobs.get(key))) await deps.blobs.put(key, png);
  return { key, ...info };
}

interface StoredTemplate {
  background: string;
  mask: string | null;
  overlay: string | null;
  uv: string | null;
  layers: string | null;
  material: Material | null;
  backMm: [number, number] | null;
  generator: Generator | null;
  printArea: PrintArea | null;
}

async function storeTemplate(deps: RenderingDeps, at: string, t: TemplateImport): Promise<StoredTemplate> {
  const none = { mask: null, overlay: null, uv: null, layers: null, material: null, backMm: null, printArea: null };
  if ('generate' in t) {
    // Drawn from the product on first use; the key only marks the row.
    return { ...none, background: `generated:${JSON.stringify(t.generate)}`, generator: t.generate };
  }
  const bg = await storeAsset(deps, `${at}.background`, t.background);
  if ('uv' in t) {
    const uv = await storeAsset(deps, `${at}.uv`, t.uv, { depth16: true });
    const layers = await storeAsset(deps, `${at}.layers`, t.layers);
    for (const [name, img] of [
      ['uv', uv],
      ['layers', layers],
    ] as const)
      if (img.width !== bg.width || img.height !== bg.height)
        throw badRequest(`${at}.${name} must have the background's size (${bg.width}x${bg.height})`);
    return {
      ...none,
      background: bg.key,
      uv: uv.key,
      layers: layers.key,
      material: t.material,
      backMm: t.backMm,
      generator: null,
    };
  }
  const problem = checkPrintArea(t.printArea, bg);
  if (problem) throw badRequest(`${at}.printArea: ${problem}`);
  const mask = await storeAsset(deps, `${at}.mask`, t.mask);
  const overlay = t.overlay ? await storeAsset(deps, `${at}.overlay`, t.overlay) : null;
  return {
    ...none,
    background: bg.key,
    mask: mask.key,
    overlay: overlay?.key ?? null,
    printArea: t.printArea,
    generator: null,
  };
}

/** A template to be drawn needs a product with geometry, and a stage template a stage's view. */
async function checkGenerated(deps: RenderingDeps, compositions: CompositionImport[]) {
  const wanted = compositions.filter((c) => 'generate' in c.template);
  if (wanted.length === 0) return;
  const shapes = await deps.catalog.productShapes(wanted.map((c) => c.productReference));
  for (const [i, c] of compositions.entries()) {
    if (!('generate' in c.template)) continue;
    const at = `compositions[${i}].template.generate`;
    const shape = shapes.get(c.productReference);
    if (!shape) continue; // an unknown product is refused with the other references
    if (!shape.device || !shape.caseType)
      throw badRequest(
        `${at}: product ${c.productReference} has no device geometry or case type to draw a mockup from`,
      );
    const g = c.template.generate;
    if (g.kind === 'stage' && !stage(g.stage)?.views.some((v) => v.key === g.view))
      throw badRequest(`${at}: no stage ${g.stage} with a view ${g.view}`);
  }
}

/**
 * Operator import of scenes, perspectives and compositions with their template assets. Rows are
 * keyed by the operator's `key`, so importing again updates them; the demo seed uses it too.
 * Assets are checked and stored before the transaction (storage is not transactional; an unused
 * asset is harmless), the rows in one transaction.
 */
export async function importRendering(deps: RenderingDeps, input: RenderingImport) {
  const assets = new Map<string, StoredTemplate>();
  await checkGenerated(deps, input.compositions ?? []);
  for (const [i, c] of (input.compositions ?? []).entries())
    assets.set(c.key, await storeTemplate(deps, `compositions[${i}].template`, c.template));
  const now = deps.clock.now();
  try {
    return await deps.db.tx(async (tx) => {
      return {
        scenes: await importScenes(tx, input, now),
        perspectives: await importPerspectives(tx, input, now),
        compositions: await importCompositions(tx, input, assets, now),
      };
    });
  } catch (err) {
    if (pgErrorCode(err) === PG_FOREIGN_KEY_VIOLATION) {
      const detail = (err as { detail?: string }).detail ?? '';
      throw badRequest(
        `A referenced organization, productgroup or product does not exist${detail ? `: ${detail}` : ''}`,
      );
    }
    if (pgErrorCode(err) === '23505')
      throw badRequest('A composition for this scene, product and perspective already exists under another key');
    throw err;
  }
}

/** Retires a composition (410 from then on) or makes it available again. */
export async function setCompositionAvailable(deps: RenderingDeps, ref: string, available: boolean) {
  if (
    !isReference('Composition', ref) ||
    !(await repo.setCompositionUnavailable(deps.db, ref, available ? null : deps.clock.now()))
  )
    throw notFound('Composition', ref);
  return { composition: { reference: ref, available } };
}

type Imported = Array<{ key: string; reference: string }>;

async function importScenes(tx: Executor, input: RenderingImport, now: Date): Promise<Imported> {
  const out: Imported = [];
  for (const [i, s] of (input.scenes ?? []).entries()) {
    const org = s.privateOrganizationReference ?? null;
    if (org !== null && !isReference('Organization', org))
      throw badRequest(`scenes[${i}].privateOrganizationReference is not an organization reference`);
    for (const g of s.compatibleProductgroupReferences)
      if (!isReference('Productgroup', g))
        throw badRequest(`scenes[${i}].compatibleProductgroupReferences: ${g} is not a productgroup reference`);
    const id = await repo.upsertScene(tx, {
      id: newReference('Scene'),
      import_key: s.key,
      name: s.name,
      description: s.description ?? '',
      private_organization_id: org,
      allows_product_perspectives: s.allowsProductPerspectives ?? false,
      created_at: now,
    });
    await repo.setSceneProductgroups(tx, id, s.compatibleProductgroupReferences);
    out.push({ key: s.key, reference: id });
  }
  return out;
}

async function importPerspectives(tx: Executor, input: RenderingImport, now: Date): Promise<Imported> {
  const out: Imported = [];
  for (const [i, p] of (input.perspectives ?? []).entries()) {
    const sceneKeys = p.sceneKeys ?? [];
    const products = p.productReferences ?? [];
    if (sceneKeys.length > 0 === products.length > 0)
      throw badRequest(
        `perspectives[${i}] needs either sceneKeys (a scene perspective) or productReferences (a product perspective)`,
      );
    for (const r of products)
      if (!isReference('Product', r))
        throw badRequest(`perspectives[${i}].productReferences: ${r} is not a product reference`);
    const sceneIds = [];
    for (const k of sceneKeys) {
      const s = await repo.sceneByKey(tx, k);
      if (!s) throw badRequest(`perspectives[${i}].sceneKeys: no scene has key ${k}`);
      sceneIds.push(s.id);
    }
    const kind = sceneKeys.length > 0 ? 'scene' : 'product';
    const existing = await repo.perspectiveByKey(tx, p.key);
    if (existing && existing.kind !== kind)
      throw badRequest(
        `perspectives[${i}]: perspective ${p.key} is a ${existing.kind} perspective and cannot become a ${kind} perspective`,
      );
    const id = await repo.upsertPerspective(tx, {
      id: newReference('Perspective'),
      import_key: p.key,
      name: p.name,
      kind,
      width_px: p.output.widthPx,
      height_px: p.output.heightPx,
      format: p.output.format,
      created_at: now,
    });
    await repo.linkPerspective(tx, id, { sceneIds, productIds: products });
    out.push({ key: p.key, reference: id });
  }
  return out;
}

async function importCompositions(
  tx: Executor,
  input: RenderingImport,
  assets: Map<string, StoredTemplate>,
  now: Date,
): Promise<Imported> {
  const out: Imported = [];
  for (const [i, c] of (input.compositions ?? []).entries()) {
    const scene = await repo.sceneByKey(tx, c.sceneKey);
    if (!scene) throw badRequest(`compositions[${i}].sceneKey: no scene has key ${c.sceneKey}`);
    const perspective = await repo.perspectiveByKey(tx, c.perspectiveKey);
    if (!perspective) throw badRequest(`compositions[${i}].perspectiveKey: no perspective has key ${c.perspectiveKey}`);
    if (!isReference('Product', c.productReference))
      throw badRequest(`compositions[${i}].productReference is not a product reference`);
    const ownOfScene = (await repo.scenePerspectiveIds(tx, scene.id)).includes(perspective.id);
    const ownOfProduct =
      scene.allows_product_perspectives &&
      (await repo.perspectiveProducts(tx, perspective.id)).includes(c.productReference);
    if (!ownOfScene && !ownOfProduct)
      throw badRequest(
        `compositions[${i}]: perspective ${c.perspectiveKey} is not usable in scene ${c.sceneKey} for this product`,
      );
    const a = assets.get(c.key)!;
    const pa = a.printArea;
    const id = await repo.upsertComposition(tx, {
      id: newReference('Composition'),
      import_key: c.key,
      scene_id: scene.id,
      product_id: c.productReference,
      perspective_id: perspective.id,
      token_cost: c.tokenCost,
      background_blob_key: a.background,
      mask_blob_key: a.mask,
      overlay_blob_key: a.overlay,
      print_x: pa?.x ?? null,
      print_y: pa?.y ?? null,
      print_width: pa?.width ?? null,
      print_height: pa?.height ?? null,
      print_rotation: pa?.rotation ?? 0,
      uv_blob_key: a.uv,
      layers_blob_key: a.layers,
      material: a.material,
      back_mm: a.backMm,
      generator: a.generator,
      unavailable_at: c.available === false ? now : null,
      created_at: now,
    });
    out.push({ key: c.key, reference: id });
  }
  return out;
}

import { createHash } from 'node:crypto';
import type { CaseType } from '../catalog/casetypes.ts';
import type { DeviceGeometry } from '../catalog/devices.ts';
import { caseOutline, printFit } from '../catalog/geometry.ts';
import type { ProductShape } from '../catalog/service.ts';
import { asBackgroundImageWork } from '../../platform/images.ts';
import type { RenderingDeps } from './deps.ts';
import { FRONTAL_EDGE, FRONTAL_VERSION, frontalTemplate } from './frontal.ts';
import { materialFor, phoneColour } from './materials.ts';
import { PLATE_VERSION, STAGE_VERSION, drawStage, plateFor } from './stage/template.ts';
import { stage as stageNamed } from './stage/stages.ts';
import { bleedBackMm, caseSolid } from './stage/case-mesh.ts';
import { RenderInputError, type TemplateParts, type TemplatePictures } from './renderer.ts';
import { type RawTemplate, isRawTemplate } from './raw-template.ts';
import { putEncoded } from './png-file.ts';
import { releaseShared, retainShared } from './pixel-threads.ts';
import { rawPngs } from './templates.ts';
import { type PhotoGenerator, photoParts } from './photo/parts.ts';

/**
 * Templates the service makes itself from the product's geometry and case type, so hundreds of
 * products get compositions without hundreds of stored assets:
 * - `front`: the straight-on perspective, drawn on first use and kept in the blob store;
 * - `stage`: a 3D stage (stage/stages.ts): its plate and the case rendered at run time from the
 *   model's geometry, so every model has it;
 * - `photo`: a partner's own photo with the four corners the case's back fills (photo/).
 */
export type Generator = { kind: 'front' } | { kind: 'stage'; stage: string; view: string } | PhotoGenerator;

export type { TemplateParts };

/** Where drawings are kept, and the module's logger for a drawing that could not be stored. */
export type DrawingStore = Pick<RenderingDeps, 'blobs'> & { log: Pick<RenderingDeps['log'], 'warn'> };

const inFlight = new Map<string, Promise<TemplatePictures | RawTemplate>>();

/** Reads the stored drawing under `base`, or makes, stores and returns it (once at a time per key). */
function storedOrMade<T extends TemplatePictures | RawTemplate>(
  store: DrawingStore,
  base: string,
  make: () => Promise<T>,
): Promise<TemplatePictures | T> {
  const { blobs } = store;
  let run = inFlight.get(base) as Promise<TemplatePictures | T> | undefined;
  if (!run) {
    run = (async (): Promise<TemplatePictures | T> => {
      const keys = ['background', 'uv', 'layers'].map((n) => `${base}/${n}.png`);
      const stored = await Promise.all(keys.map((k) => blobs.get(k)));
      if (stored[0] && stored[1] && stored[2]) return { background: stored[0], uv: stored[1], layers: stored[2] };
      const made = await make();
      if (isRawTemplate(made)) {
        storeLater(store, keys, made);
        return made;
      }
      await blobs.put(keys[0], made.background);
      await blobs.put(keys[1], made.uv);
      await blobs.put(keys[2], made.layers);
      return made;
    })();
    inFlight.set(base, run);
    run.finally(() => inFlight.delete(base)).catch(() => {});
  }
  return run;
}

/** Drawings being encoded for the blob store, one after the other. */
let storing: Promise<void> = Promise.resolve();

/**
 * A drawing handed to the renderer as drawn is stored for other nodes (and this one, once its
 * decoded layers are let go) afterwards: one PNG encoded into a file and moved at a time, one drawing after
 * the other, so a node never holds the drawing's three PNGs and their decoded copies at once. The
 * layers file goes last: a reader takes the drawing only when all three are there. If storing
 * fails, the next node to need the drawing draws it again.
 */
function storeLater({ blobs, log }: DrawingStore, keys: string[], drawn: RawTemplate): void {
  const png = rawPngs(drawn);
  // The background is the renderer's decoded background too: held here, it goes back to the spares
  // only once both have let it go.
  retainShared(drawn.background);
  storing = storing
    .then(() =>
      asBackgroundImageWork(async () => {
        await putEncoded(blobs, keys[0], png.background());
        await putEncoded(blobs, keys[1], png.uv());
        await putEncoded(blobs, keys[2], png.layers());
      }),
    )
    .catch((err: unknown) =>
      log.warn({ err, key: keys[2] }, 'drawn template not stored; the next node to need it draws it again'),
    )
    .finally(() => releaseShared(drawn.background));
}

/** Resolves once every drawing handed over so far is stored (tests, tools). */
export function drawingsStored(): Promise<void> {
  return storing;
}

function stageParts(
  store: DrawingStore,
  g: { stage: string; view: string },
  device: DeviceGeometry,
  caseType: CaseType,
  output: { widthPx: number; heightPx: number },
): TemplateParts {
  const st = stageNamed(g.stage);
  const view = st?.views.find((v) => v.key === g.view);
  if (!st || !view) throw new RenderInputError(`no stage ${g.stage} with a view ${g.view}`);
  const size = { width: output.widthPx, height: output.heightPx };
  const material = materialFor(caseType, phoneColour(device));
  const digest = createHash('sha256')
    .update(JSON.stringify([STAGE_VERSION, PLATE_VERSION, st, view, device, caseType, material, size]))
    .digest('hex')
    .slice(0, 32);
  const base = `rendering/generated/stage/${digest}`;
  return {
    load: () =>
      storedOrMade(store, base, async () => {
        const plate = await plateFor(store.blobs, st, view, size);
        return asBackgroundImageWork(() => drawStage(plate, st, view, device, caseType, material, size));
      }),
    material,
    backMm: bleedBackMm(caseSolid(device, caseType)),
    cacheKey: base,
  };
}

/** A generated template, with the product's print area and bleed the artwork is fitted to. */
export async function generatedTemplate(
  store: DrawingStore,
  g: Generator,
  shape: ProductShape | undefined,
  output: { widthPx: number; heightPx: number },
): Promise<TemplateParts> {
  if (!shape?.device || !shape.caseType)
    throw new RenderInputError('the product has no device geometry or case type to draw its mockup from');
  const parts = await drawnParts(store, g, shape.device, shape.caseType, output);
  return { ...parts, fit: printFit(shape.device, shape.caseType) };
}

async function drawnParts(
  store: DrawingStore,
  g: Generator,
  device: DeviceGeometry,
  caseType: CaseType,
  output: { widthPx: number; heightPx: number },
): Promise<TemplateParts> {
  if (g.kind === 'stage') return stageParts(store, g, device, caseType, output);
  if (g.kind === 'photo')
    return photoParts(store.blobs, g, device, caseType, output, (base, make) => storedOrMade(store, base, make));
  // A stored row may name a kind this service does not draw (the retired baked scenes, decision
  // 0294): its render fails with the reason instead of drawing another kind of mockup.
  if (g.kind !== 'front') throw new RenderInputError(`no template of kind ${String((g as { kind: unknown }).kind)}`);
  // Drawn at the output's aspect (long edge FRONTAL_EDGE, or the output's when larger): no crop.
  const long = Math.max(output.widthPx, output.heightPx);
  const edge = Math.max(FRONTAL_EDGE, long);
  const size = {
    width: Math.round((output.widthPx / long) * edge),
    height: Math.round((output.heightPx / long) * edge),
  };
  const digest = createHash('sha256')
    .update(JSON.stringify([FRONTAL_VERSION, device, caseType, size]))
    .digest('hex')
    .slice(0, 32);
  const base = `rendering/generated/front/${digest}`;
  // Read (or drawn and stored) only when the renderer does not hold this drawing's decoded layers;
  // drawn once per device, case type and size, its libvips encodes below the event loop too.
  const load = () =>
    storedOrMade(store, base, () => asBackgroundImageWork(() => frontalTemplate(device, caseType, size)));
  const outline = caseOutline(device, caseType);
  return {
    load,
    // The material and the back size are cheap to compute, so they are not stored.
    material: materialFor(caseType, phoneColour(device)),
    backMm: [outline.widthMm, outline.heightMm],
    cacheKey: base,
  };
}

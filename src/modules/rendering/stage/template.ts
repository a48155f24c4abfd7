import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { CaseType } from '../../catalog/casetypes.ts';
import type { DeviceGeometry } from '../../catalog/devices.ts';
import type { BlobStore } from '../../../platform/storage.ts';
import { grain } from '../fit.ts';
import { GRAIN_SIZE } from '../grain.ts';
import type { RawTemplate } from '../raw-template.ts';
import { rawPictures } from '../templates.ts';
import { leaseShared, releaseShared, runCase, runDecode, runPlate } from '../pixel-threads.ts';
import type { DrawnTemplate, Material } from '../renderer.ts';
import { bleedBackMm, caseMesh, caseParams, caseSolid, holeParams } from './case-mesh.ts';
import { PROP_STRIDE } from './plate-kernel.ts';
import { type Prop, type Stage, StageCamera, type StageView, framed, normalised, propHull } from './stages.ts';

/** Bump when the case drawing changes: stored stage templates are keyed by it. */
export const STAGE_VERSION = 8;
/**
 * Bump when the plate drawing changes: stored plates are keyed by it, and so are the stage
 * templates drawn on them (generated.ts).
 */
export const PLATE_VERSION = 7;

const FLOOR = { paper: 0, oak: 1, marble: 2 } as const;

function packProps(props: Prop[]): Float64Array {
  const out = new Float64Array(props.length * PROP_STRIDE);
  for (const [i, p] of props.entries()) {
    const row =
      p.kind === 'sphere'
        ? [0, ...p.at, p.r, ...p.rgb, p.gloss]
        : p.kind === 'cylinder'
          ? [1, ...p.at, p.r, p.h, ...p.rgb, ...p.cap, p.gloss]
          : [
              2,
              ...p.at,
              Math.cos((p.turnDeg * Math.PI) / 180),
              Math.sin((p.turnDeg * Math.PI) / 180),
              p.size[0] / 2,
              p.size[1] / 2,
              p.size[2],
              ...p.rgb,
              ...p.top,
            ];
    out.set(row, i * PROP_STRIDE);
  }
  return out;
}

/** Each prop's box on the screen (px), for the frame test and the plate's edge sampling. */
export function propRects(st: Stage, cam: StageCamera): Array<[number, number, number, number]> {
  return st.props.map((p) => {
    const pts = propHull(p).map((q) => cam.project(q));
    const xs = pts.map((q) => q[0]);
    const ys = pts.map((q) => q[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  });
}

/** The stage's plate at this size: raw RGB, rendered on the compositor's threads. */
export async function renderPlate(st: Stage, v: StageView, size: { width: number; height: number }) {
  const cam = new StageCamera(framed(st, v, size), size);
  const margin = Math.max(2, size.width / 250);
  const rects = propRects(st, cam).flatMap(([a, b, c, d]) => [a - margin, b - margin, c + margin, d + margin]);
  // A plain buffer, moved to the thread and back (runPlate).
  const { out } = await runPlate({
    width: size.width,
    height: size.height,
    out: new Uint8Array(size.width * size.height * 3),
    cam: cam.packed(),
    light: Float64Array.from([...normalised(st.light), st.ambient]),
    floor: FLOOR[st.floor],
    props: packProps(st.props),
    rects: Float64Array.from(rects),
  });
  return out;
}

const platesInFlight = new Map<string, Promise<Buffer>>();

/**
 * The plate as a PNG, drawn once per stage, view and size and kept in the blob store. Each stage
 * template decodes it into its own background on a compositor thread (drawStage): the pixels never
 * sit on the event loop's side.
 */
export function plateFor(
  blobs: BlobStore,
  st: Stage,
  view: StageView,
  size: { width: number; height: number },
): Promise<Buffer> {
  const digest = createHash('sha256')
    .update(JSON.stringify([PLATE_VERSION, st, view.key, size]))
    .digest('hex')
    .slice(0, 32);
  const key = `rendering/generated/plate/${digest}.png`;
  let run = platesInFlight.get(key);
  if (!run) {
    run = (async () => {
      const stored = await blobs.get(key);
      if (stored) return stored;
      const png = await sharp(await renderPlate(st, view, size), { raw: { ...size, channels: 3 } })
        .png({ compressionLevel: 3 })
        .toBuffer();
      await blobs.put(key, png);
      return png;
    })();
    platesInFlight.set(key, run);
    run.finally(() => platesInFlight.delete(key)).catch(() => {});
  }
  return run;
}

/**
 * One stage template for one model and case type at one output size, from its plate's PNG: the
 * plate with the case's shadow and cut-out, the UV map and the layers, as drawn (the renderer takes
 * them without a PNG round trip). The artwork is fitted to the back and its bleed.
 */
export async function drawStage(
  plate: Buffer,
  st: Stage,
  v: StageView,
  device: DeviceGeometry,
  caseType: CaseType,
  material: Material,
  size: { width: number; height: number },
): Promise<RawTemplate> {
  const { width: W, height: H } = size;
  const solid = caseSolid(device, caseType);
  const view = framed(st, v, size);
  const turn = (view.caseTurnDeg * Math.PI) / 180;
  const cam = new StageCamera(view, size);
  const mesh = caseMesh(solid, turn, cam);
  // Room for the shadow around the case: 25 mm at the case's distance.
  const pad = Math.ceil((cam.f / view.distanceMm) * 25);
  const box = Int32Array.from([
    Math.max(0, Math.floor(mesh.bounds.x0) - pad),
    Math.max(0, Math.floor(mesh.bounds.y0) - pad),
    Math.min(W, Math.ceil(mesh.bounds.x1) + pad),
    Math.min(H, Math.ceil(mesh.bounds.y1) + pad),
  ]);
  // The background in shared memory, a spare of the frame's length when there is one: the plate's
  // PNG decoded into it and the case drawn into it on a compositor thread, then held by the renderer
  // as the template's decoded background. A new buffer's pages are first touched there: a frame-size
  // copy on the event loop is 25-55 ms at 2000 px. The UV map and the layers only for the box (the
  // rest is no case), plain buffers moved to the case's thread and back (runCase).
  const background = leaseShared(W * H * 3);
  try {
    await runDecode({ encoded: plate, width: W, height: H, out: background });
    const bw = box[2] - box[0];
    const bh = box[3] - box[1];
    const gloss = material.highlight;
    const { uv, layers } = await runCase({
      width: W,
      height: H,
      box,
      background,
      uv: new Uint16Array(bw * bh * 3),
      layers: new Uint8Array(bw * bh * 3),
      cam: cam.packed(),
      verts: mesh.verts,
      tris: mesh.tris,
      p: caseParams(solid, turn, st.light, st.ambient, 0.25 + 0.6 * gloss, {
        stitched: caseType.material.finish === 'leather' || caseType.material.book,
        bezel: caseType.key === 'tough',
        grain: material.grain,
        wallSeam: caseType.material.finish === 'leather',
      }),
      hole: holeParams(device, caseType, material.phoneHex, material.baseHex),
      grainTex: await grain(),
      grainSize: GRAIN_SIZE,
    });
    return { width: W, height: H, background, box, uv, layers };
  } catch (err) {
    // Nothing else holds the background yet (a failed thread job writes no more into it): a plate
    // that does not decode or a case that cannot be drawn hands it back to the spares.
    releaseShared(background);
    throw err;
  }
}

/** A stage template as its three PNGs (tests and tools; the service stores them this way). */
export async function stageTemplate(
  plate: Buffer,
  st: Stage,
  v: StageView,
  device: DeviceGeometry,
  caseType: CaseType,
  material: Material,
  size: { width: number; height: number },
): Promise<DrawnTemplate> {
  const drawn = await drawStage(plate, st, v, device, caseType, material, size);
  const png = rawPictures(drawn);
  return {
    background: await png.background(),
    uv: await png.uv(),
    layers: await png.layers(),
    material,
    backMm: bleedBackMm(caseSolid(device, caseType)),
  };
}

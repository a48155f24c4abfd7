import sharp from 'sharp';
import type { CaseType } from '../../catalog/casetypes.ts';
import type { DeviceGeometry } from '../../catalog/devices.ts';
import { CLEAR_RIM, caseOutline, caseProfile } from '../../catalog/geometry.ts';
import { boxToFrame } from '../templates.ts';
import { runPhoto, sharedBytes, sharedCopy } from '../pixel-threads.ts';
import { type DrawnTemplate, type Material, RenderInputError } from '../renderer.ts';
import { holeParams } from '../stage/case-mesh.ts';
import { type Corners, invert3, squareToQuad } from './homography.ts';

/** Bump when the drawing changes: stored drawings are keyed by it. */
export const PHOTO_VERSION = 2;

/** Room around the case for its shadow, in mm on the back's plane. */
const SHADOW_MM = 16;

const dist = (a: [number, number], b: [number, number]) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/**
 * One template of a partner's photo scene for one model and case type at one output size: the
 * photo with the case's shadow and cut-out, the UV map and the layers. `corners` are in pixels of
 * the photo as stored (`photoSize`); the case's back fills them.
 */
export async function photoTemplate(
  photo: Buffer,
  photoSize: { width: number; height: number },
  corners: Corners,
  device: DeviceGeometry,
  caseType: CaseType,
  material: Material,
  size: { width: number; height: number },
): Promise<DrawnTemplate> {
  const { width: W, height: H } = size;
  const o = caseOutline(device, caseType);
  const sx = W / photoSize.width;
  const sy = H / photoSize.height;
  const c = corners.map(([x, y]) => [x * sx, y * sy]) as Corners;
  const inv = invert3(squareToQuad(c));
  const pxPerMm =
    ((dist(c[0], c[1]) + dist(c[3], c[2])) / o.widthMm + (dist(c[0], c[3]) + dist(c[1], c[2])) / o.heightMm) / 4;
  const pad = Math.ceil(pxPerMm * SHADOW_MM);
  const xs = c.map((q) => q[0]);
  const ys = c.map((q) => q[1]);
  const box = Int32Array.from([
    Math.max(0, Math.floor(Math.min(...xs)) - pad),
    Math.max(0, Math.floor(Math.min(...ys)) - pad),
    Math.min(W, Math.ceil(Math.max(...xs)) + pad),
    Math.min(H, Math.ceil(Math.max(...ys)) + pad),
  ]);
  const bw = box[2] - box[0];
  const bh = box[3] - box[1];
  let rgb: Buffer;
  try {
    rgb = await sharp(photo).resize(W, H, { fit: 'fill' }).toColourspace('srgb').removeAlpha().raw().toBuffer();
  } catch (err) {
    throw new RenderInputError(`scene photo does not decode: ${(err as Error).message}`);
  }
  // The light: the photo's luminance, blurred well past its texture (a fifth of the case's width).
  const light = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
    .extract({ left: box[0], top: box[1], width: bw, height: bh })
    .greyscale()
    .blur(Math.max(1, (pxPerMm * o.widthMm) / 5))
    .extractChannel(0)
    .raw()
    .toBuffer();
  const background = sharedCopy(rgb);
  const uv = new Uint16Array(new SharedArrayBuffer(bw * bh * 6));
  const layers = sharedBytes(bw * bh * 3);
  await runPhoto({
    width: W,
    height: H,
    box,
    background,
    light: sharedCopy(light),
    inv,
    p: Float64Array.from([
      o.widthMm,
      o.heightMm,
      o.cornerRadiusMm,
      caseType.material.finish === 'leather' || caseType.material.book ? 1 : 0,
      caseType.key === 'tough' ? 1 : 0,
      // A clear shell is printed on its flat back only: its rounded rim (mm) stays clear.
      caseType.material.transparency >= CLEAR_RIM ? caseProfile(device, caseType).edgeMm : 0,
      caseType.material.transparency,
    ]),
    hole: holeParams(device, caseType, material.phoneHex, material.baseHex),
    uv,
    layers,
  });
  return {
    background: await sharp(background, { raw: { width: W, height: H, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toBuffer(),
    uv: await boxToFrame(uv, size, box, { r: 0, g: 0, b: 0 }).toBuffer(),
    // Outside the case: no mask, neutral shading.
    layers: await boxToFrame(layers, size, box, { r: 0, g: 255, b: 0 }).toBuffer(),
    material,
    backMm: [o.widthMm, o.heightMm],
  };
}

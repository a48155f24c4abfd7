import sharp, { type Metadata, type Sharp } from 'sharp';
import { type PrintArea, RenderInputError, type DrawnTemplate } from './renderer.ts';
import { runPrintArea, sharedBytes, sharedCopy } from './pixel-threads.ts';
import type { RawTemplate } from './raw-template.ts';
import type { Material } from './warp.ts';

/** Encoders for template layers, and the conversion of rectangle templates. */

/** A UV map already in 16-bit samples (3 a pixel) → its PNG. */
export function uv16Png(width: number, height: number, data: Uint16Array): Promise<Buffer> {
  return sharp(data, { raw: { width, height, channels: 3 } })
    .toColourspace('rgb16')
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** Layers already interleaved (3 bytes a pixel) → their PNG. */
export function rgbPng(width: number, height: number, data: Uint8Array): Promise<Buffer> {
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/**
 * A UV map (16-bit) or layers (8-bit) drawn for a box of the frame only (3 samples a pixel), padded
 * to the frame with `outside` while encoded: the frame-size buffer never sits in memory.
 */
export function boxToFrame(
  buf: Uint8Array | Uint16Array,
  frame: { width: number; height: number },
  box: Int32Array,
  outside: { r: number; g: number; b: number },
): Sharp {
  const img = sharp(buf, { raw: { width: box[2] - box[0], height: box[3] - box[1], channels: 3 } });
  return (buf instanceof Uint16Array ? img.toColourspace('rgb16') : img)
    .extend({
      left: box[0],
      top: box[1],
      right: frame.width - box[2],
      bottom: frame.height - box[3],
      background: { ...outside, alpha: 1 },
    })
    .png({ compressionLevel: 1 });
}

/**
 * The three PNG encoders of a drawn template, libvips pipelines over the drawn buffers that run when
 * their output is asked for (a file for the blob store, or a buffer).
 */
export function rawPngs(t: RawTemplate): Record<'background' | 'uv' | 'layers', () => Sharp> {
  const frame = { width: t.width, height: t.height };
  return {
    background: () => sharp(t.background, { raw: { ...frame, channels: 3 } }).png({ compressionLevel: 1 }),
    uv: () => boxToFrame(t.uv, frame, t.box, { r: 0, g: 0, b: 0 }),
    // Outside the case: no mask, neutral shading.
    layers: () => boxToFrame(t.layers, frame, t.box, { r: 0, g: 255, b: 0 }),
  };
}

/** The three PNGs of a drawn template, each encoded when asked. */
export function rawPictures(t: RawTemplate) {
  const png = rawPngs(t);
  return {
    background: () => png.background().toBuffer(),
    uv: () => png.uv().toBuffer(),
    layers: () => png.layers().toBuffer(),
  };
}

/** White shell, opaque ink: what rectangle templates mean. */
export const PLAIN_MATERIAL: Material = {
  baseHex: '#ffffff',
  phoneHex: '#ffffff',
  transparency: 0,
  shading: 1,
  highlight: 1,
  grain: 0,
  ink: 1,
  magsafeRing: false,
};

export interface RectangleTemplate {
  background: Buffer;
  mask: Buffer;
  overlay: Buffer | null;
  printArea: PrintArea;
}

const grey = async (what: string, input: Buffer, w: number, h: number, channels: 1 | 4) => {
  try {
    const img = sharp(input).resize(w, h, { fit: 'fill' });
    const out = channels === 1 ? img.flatten({ background: '#000' }).greyscale().extractChannel(0) : img.ensureAlpha();
    return await out.raw().toBuffer();
  } catch (err) {
    throw new RenderInputError(`template ${what} does not decode: ${(err as Error).message}`);
  }
};

/**
 * A rectangle template (a rectangle rotated about its centre, a mask over it and an "over" overlay) as
 * UV map and layers, so every composition goes through the one warp. The overlay's dark parts
 * become shading (multiply by 1 - alpha), its light parts highlight (screen by alpha).
 */
export async function fromPrintArea(t: RectangleTemplate): Promise<DrawnTemplate> {
  let bg: Metadata;
  try {
    bg = await sharp(t.background).metadata();
  } catch (err) {
    throw new RenderInputError(`template background does not decode: ${(err as Error).message}`);
  }
  const W = bg.width!;
  const H = bg.height!;
  const a = t.printArea;
  const mask = await grey('mask', t.mask, a.width, a.height, 1);
  const overlay = t.overlay ? await grey('overlay', t.overlay, a.width, a.height, 4) : null;
  const layers = sharedBytes(W * H * 3);
  const uv = new Uint16Array(new SharedArrayBuffer(W * H * 6));
  await runPrintArea({
    width: W,
    height: H,
    x: a.x,
    y: a.y,
    areaWidth: a.width,
    areaHeight: a.height,
    radians: (a.rotation * Math.PI) / 180,
    mask: sharedCopy(mask),
    overlay: overlay && sharedCopy(overlay),
    layers,
    uv,
  });
  return {
    background: t.background,
    uv: await uv16Png(W, H, uv),
    layers: await rgbPng(W, H, layers),
    material: PLAIN_MATERIAL,
    backMm: [a.width, a.height],
  };
}

/** The bounding box of a w×h rectangle rotated by `deg`. */
function rotatedSize(w: number, h: number, deg: number): { w: number; h: number } {
  const r = (deg * Math.PI) / 180;
  const c = Math.abs(Math.cos(r));
  const s = Math.abs(Math.sin(r));
  return { w: Math.round(w * c + h * s), h: Math.round(w * s + h * c) };
}

/** Checks a rectangle template's geometry against a background size; the import calls it so a bad template never lands. */
export function checkPrintArea(area: PrintArea, bg: { width: number; height: number }): string | null {
  if (![area.x, area.y, area.width, area.height].every(Number.isInteger))
    return 'print area position and size must be whole pixels';
  if (area.width < 2 || area.height < 2) return 'print area must be at least 2x2 pixels';
  if (!Number.isFinite(area.rotation) || Math.abs(area.rotation) > 360)
    return 'rotation must be between -360 and 360 degrees';
  const r = rotatedSize(area.width, area.height, area.rotation);
  const left = Math.round(area.x + area.width / 2 - r.w / 2);
  const top = Math.round(area.y + area.height / 2 - r.h / 2);
  if (left < 0 || top < 0 || left + r.w + 1 > bg.width || top + r.h + 1 > bg.height) {
    return `print area (rotated) must lie inside the ${bg.width}x${bg.height} background`;
  }
  return null;
}

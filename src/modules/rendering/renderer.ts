import sharp, { type Metadata, type Sharp } from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';

export type OutputFormat = 'png' | 'jpeg' | 'webp';

export const FORMATS: Record<OutputFormat, { mimeType: string; extension: string }> = {
  png: { mimeType: 'image/png', extension: 'png' },
  jpeg: { mimeType: 'image/jpeg', extension: 'jpg' },
  webp: { mimeType: 'image/webp', extension: 'webp' },
};

/** Where the partner's image goes on the background, in background pixels. */
export interface PrintArea {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Degrees, clockwise, about the print area's centre. */
  rotation: number;
}

/** Everything a composition needs, already read from storage. */
export interface Template {
  background: Buffer;
  /** Luminance mask over the print area: white prints, black is cut away (case outline, camera hole). */
  mask: Buffer;
  /** Shading and highlights laid over the print, with alpha; null when the scene has none. */
  overlay: Buffer | null;
  printArea: PrintArea;
  output: { widthPx: number; heightPx: number; format: OutputFormat };
}

export interface RenderOutput {
  media: Buffer;
  thumbnail: Buffer;
  /** base64 */
  thumbhash: string;
}

/** A render that can never succeed (bad template or image): retrying is pointless. */
export class RenderInputError extends Error {}

export const THUMBNAIL_WIDTH = 256;

function encode(img: Sharp, format: OutputFormat): Promise<Buffer> {
  if (format === 'jpeg') return img.jpeg({ quality: 88, mozjpeg: false }).toBuffer();
  if (format === 'webp') return img.webp({ quality: 88, effort: 2 }).toBuffer();
  return img.png({ compressionLevel: 6 }).toBuffer();
}

/** The bounding box of a w×h rectangle rotated by `deg`, as sharp computes it. */
function rotatedSize(w: number, h: number, deg: number): { w: number; h: number } {
  const r = (deg * Math.PI) / 180;
  const c = Math.abs(Math.cos(r));
  const s = Math.abs(Math.sin(r));
  return { w: Math.round(w * c + h * s), h: Math.round(w * s + h * c) };
}

/** Checks geometry against a background size; the import calls it so a bad template never lands. */
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

async function decode(what: string, input: Buffer): Promise<Metadata> {
  try {
    const meta = await sharp(input).metadata();
    if (!meta.width || !meta.height) throw new Error('no dimensions');
    return meta;
  } catch (err) {
    throw new RenderInputError(`${what} does not decode: ${(err as Error).message}`);
  }
}

/**
 * Composes the partner's image onto a scene: cover-resize to the print area, shade, mask to the
 * case shape, rotate, place on the background, then size and encode for the perspective. Pure
 * (bytes in, bytes out) so the benchmark can run it next to a plain sharp pipeline.
 */
export async function composeRender(template: Template, imageBytes: Buffer): Promise<RenderOutput> {
  try {
    return await compose(template, imageBytes);
  } catch (err) {
    // Pure CPU work on given bytes: a failure here fails again on every retry (e.g. a truncated image).
    if (err instanceof RenderInputError) throw err;
    throw new RenderInputError(`composition failed: ${(err as Error).message}`);
  }
}

async function compose(template: Template, imageBytes: Buffer): Promise<RenderOutput> {
  const { printArea: a, output } = template;
  const bg = await decode('template background', template.background);
  await decode('template mask', template.mask);
  if (template.overlay) await decode('template overlay', template.overlay);
  await decode('image', imageBytes);
  const problem = checkPrintArea(a, { width: bg.width!, height: bg.height! });
  if (problem) throw new RenderInputError(`template geometry: ${problem}`);

  const w = a.width;
  const h = a.height;
  // Intermediates stay raw pixels: no encode/decode between the steps.
  const rawOf = (width: number, height: number, channels: 1 | 3 | 4) => ({ raw: { width, height, channels } });
  // A transparent part of the partner's image shows the (white) case material.
  let print = await sharp(imageBytes)
    .rotate()
    .resize(w, h, { fit: 'cover', position: 'centre' })
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer();
  if (template.overlay) {
    const overlay = await sharp(template.overlay).resize(w, h, { fit: 'fill' }).ensureAlpha().raw().toBuffer();
    print = await sharp(print, rawOf(w, h, 3))
      .composite([{ input: overlay, ...rawOf(w, h, 4), blend: 'over' }])
      .removeAlpha()
      .raw()
      .toBuffer();
  }
  const alpha = await sharp(template.mask)
    .flatten({ background: '#000000' })
    .resize(w, h, { fit: 'fill' })
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer();
  const shaped = await sharp(print, rawOf(w, h, 3))
    .joinChannel(alpha, rawOf(w, h, 1))
    .raw()
    .toBuffer();
  const rotated =
    a.rotation % 360 === 0
      ? { data: shaped, info: { width: w, height: h } }
      : await sharp(shaped, rawOf(w, h, 4))
          .rotate(a.rotation, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
          .raw()
          .toBuffer({ resolveWithObject: true });
  const left = Math.round(a.x + w / 2 - rotated.info.width / 2);
  const top = Math.round(a.y + h / 2 - rotated.info.height / 2);
  if (left < 0 || top < 0 || left + rotated.info.width > bg.width! || top + rotated.info.height > bg.height!) {
    throw new RenderInputError('template geometry: the rotated print area does not fit on the background');
  }

  let scene = await sharp(template.background)
    .composite([{ input: rotated.data, ...rawOf(rotated.info.width, rotated.info.height, 4), left, top }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (bg.width !== output.widthPx || bg.height !== output.heightPx) {
    scene = await sharp(scene.data, rawOf(scene.info.width, scene.info.height, scene.info.channels as 3 | 4))
      .resize(output.widthPx, output.heightPx, { fit: 'cover' })
      .raw()
      .toBuffer({ resolveWithObject: true });
  }
  const composed = () => {
    const img = sharp(scene.data, rawOf(scene.info.width, scene.info.height, scene.info.channels as 3 | 4));
    return output.format === 'jpeg' ? img.flatten({ background: '#ffffff' }) : img;
  };
  const thumbWidth = Math.min(THUMBNAIL_WIDTH, output.widthPx);
  // One after the other: in parallel the three pipelines kept three threads busy at once, more than
  // a 2-core node can give a background render without delaying the API.
  const media = await encode(composed(), output.format);
  const thumbnail = await encode(composed().resize({ width: thumbWidth }), output.format);
  const thumbhash = await thumbhashOf(composed());
  return { media, thumbnail, thumbhash };
}

/** ThumbHash wants RGBA of at most 100x100. */
export async function thumbhashOf(image: Sharp): Promise<string> {
  const { data, info } = await image
    .resize(100, 100, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return Buffer.from(rgbaToThumbHash(info.width, info.height, data)).toString('base64');
}

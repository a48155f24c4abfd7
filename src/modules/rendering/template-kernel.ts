/**
 * A template's three pictures decoded and cut to one output size on a compositor thread, into the
 * shared memory the renderer holds them in (renderer.ts, prepare). At 1000 px the background alone
 * is 3 MB of RGB (12 MB at 2000 px) that libvips hands out as a fresh buffer: decoded on the event
 * loop, it and its copy into shared memory held every API request for 10 ms and more, and counted
 * against the main heap's external-memory limit. Here libvips' buffers are left to the thread's heap.
 */
import sharp, { type Sharp } from 'sharp';
import { cutBox, maskBox } from './mask-box.ts';
import { sharedCopy } from './shared-bytes.ts';
import type { MaskBox } from './warp.ts';

export interface TemplateJob {
  /** The pictures as stored (renderer.ts, TemplatePictures). */
  background: Uint8Array;
  uv: Uint8Array;
  layers: Uint8Array;
  /** The output size they are cut to, like `fit: cover`. */
  width: number;
  height: number;
}

/** The decoded layers: the background at the output's size, the UV map and layers for the mask's box. */
export interface DecodedTemplate {
  background: Uint8Array;
  box: MaskBox;
  /** u then v, two planes of the box. */
  uv: Uint16Array;
  layers: Uint8Array;
}

/** A template that cannot be decoded: the template's fault (the renderer fails the render for good). */
export const UNDECODABLE = 'template:';

export async function templateKernel(t: TemplateJob): Promise<DecodedTemplate> {
  const { width, height } = t;
  const cut = { width, height, fit: 'cover' as const, kernel: 'linear' as const };
  const raw = async (what: string, img: () => Sharp, depth: 'uchar' | 'ushort', box?: MaskBox) => {
    try {
      const resized = img().resize(cut);
      const { data, info } = await (box ? resized.extract(box) : resized)
        .raw({ depth })
        .toBuffer({ resolveWithObject: true });
      return { data, channels: info.channels };
    } catch (err) {
      throw new Error(`${UNDECODABLE} template ${what} does not decode: ${(err as Error).message}`);
    }
  };
  const bg = await raw(
    'background',
    () => sharp(t.background).flatten({ background: '#ffffff' }).toColourspace('srgb').removeAlpha(),
    'uchar',
  );
  const layers = await raw('layers', () => sharp(t.layers).toColourspace('srgb').removeAlpha(), 'uchar');
  if (bg.channels !== 3 || layers.channels !== 3) throw new Error(`${UNDECODABLE} template layers must be RGB images`);
  const box = await maskBox(layers.data, width, height);
  const n = box.width * box.height;
  const uv = new Uint16Array(new SharedArrayBuffer(n * 4));
  if (n > 0) {
    // u and v as two planes of 16-bit values, each band extracted by libvips and cut to the box
    // (two decodes of a map that is decoded once per template and held): no per-pixel loop.
    const plane = (band: 0 | 1) =>
      raw('uv map', () => sharp(t.uv).toColourspace('rgb16').removeAlpha().extractChannel(band), 'ushort', box);
    const u = await plane(0);
    const v = await plane(1);
    if (u.channels !== 1 || v.channels !== 1) throw new Error(`${UNDECODABLE} template layers must be RGB images`);
    const bytes = new Uint8Array(uv.buffer);
    bytes.set(u.data, 0);
    bytes.set(v.data, n * 2);
  }
  return { background: sharedCopy(bg.data), box, uv, layers: cutBox(layers.data, width, box, 3) };
}

/**
 * A template's layers decoded and cut to its mask's box on a compositor thread (template-cache.ts
 * holds what comes back). At 2000 px the pictures decode to 12 MB buffers and more, which the
 * mask's box, the UV map's planes and the cut then read and copy: ~25 ms of CPU and ~40 MB of
 * buffers per template. On the event loop that is time in which no API request is answered, and
 * buffers that start a full collection of the main heap; here both fall on a thread that runs
 * below the event loop, and only the cut layers, in shared memory, come back.
 */
import sharp, { type Sharp } from 'sharp';
import { cutBox, maskBox } from './mask-box.ts';
import type { MaskBox } from './warp.ts';

/** The decoded layers of a template, cut to its mask's box. */
export interface TemplateLayers {
  box: MaskBox;
  /** u then v, two planes of the mask's box, in shared memory. */
  uv: Uint16Array;
  /** The layers of the mask's box, in shared memory. */
  layers: Uint8Array;
}

/** A template stored as three pictures, cut to the output's size. */
export interface StoredTemplateJob {
  background: Uint8Array;
  uv: Uint8Array;
  layers: Uint8Array;
  width: number;
  height: number;
  /** Shared, width x height x 3 bytes: the background as RGB. */
  out: Uint8Array;
}

/** A template's UV map and layers as drawn, for the box `width` x `height` they were drawn in. */
export interface DrawnLayersJob {
  uv: Uint16Array;
  layers: Uint8Array;
  width: number;
  height: number;
}

export async function storedTemplateKernel(job: StoredTemplateJob): Promise<TemplateLayers> {
  const { width, height } = job;
  const cut = { width, height, fit: 'cover' as const, kernel: 'linear' as const };
  const raw = async (what: string, img: () => Sharp, depth: 'uchar' | 'ushort', box?: MaskBox) => {
    try {
      const resized = img().resize(cut);
      const { data, info } = await (box ? resized.extract(box) : resized)
        .raw({ depth })
        .toBuffer({ resolveWithObject: true });
      return { data, channels: info.channels };
    } catch (err) {
      throw new Error(`template ${what} does not decode: ${(err as Error).message}`);
    }
  };
  const bg = await raw(
    'background',
    () => sharp(job.background).flatten({ background: '#ffffff' }).toColourspace('srgb').removeAlpha(),
    'uchar',
  );
  const layers = await raw('layers', () => sharp(job.layers).toColourspace('srgb').removeAlpha(), 'uchar');
  if (bg.channels !== 3 || layers.channels !== 3) throw new Error('template layers must be RGB images');
  if (bg.data.length !== job.out.length)
    throw new Error(`template background decodes to ${bg.data.length} bytes, not ${job.out.length}`);
  job.out.set(bg.data);
  const box = await maskBox(layers.data, width, height);
  const n = box.width * box.height;
  const uv = new Uint16Array(new SharedArrayBuffer(n * 4));
  if (n > 0) {
    // u and v as two planes of 16-bit values, each band extracted by libvips and cut to the box
    // (two decodes of a map that is decoded once per template and held).
    const plane = (band: 0 | 1) =>
      raw('uv map', () => sharp(job.uv).toColourspace('rgb16').removeAlpha().extractChannel(band), 'ushort', box);
    const u = await plane(0);
    const v = await plane(1);
    if (u.channels !== 1 || v.channels !== 1) throw new Error('template layers must be RGB images');
    const bytes = new Uint8Array(uv.buffer);
    bytes.set(u.data, 0);
    bytes.set(v.data, n * 2);
  }
  return { box, uv, layers: cutBox(layers.data, width, box, 3) };
}

/** The mask's box found in a drawing's box, and its UV map's two bands cut to it by libvips. */
export async function drawnLayersKernel(job: DrawnLayersJob): Promise<TemplateLayers> {
  const { width: bw, height: bh } = job;
  const box = await maskBox(Buffer.from(job.layers.buffer, job.layers.byteOffset, job.layers.byteLength), bw, bh);
  const n = box.width * box.height;
  const uv = new Uint16Array(new SharedArrayBuffer(n * 4));
  if (n === 0) return { box, uv, layers: new Uint8Array(new SharedArrayBuffer(0)) };
  const bytes = new Uint8Array(uv.buffer);
  for (const band of [0, 1] as const) {
    // Raw 16-bit samples are read as 16-bit RGB only when told (as when they are encoded).
    const plane = await sharp(job.uv, { raw: { width: bw, height: bh, channels: 3 } })
      .toColourspace('rgb16')
      .extractChannel(band)
      .extract(box)
      .raw({ depth: 'ushort' })
      .toBuffer();
    bytes.set(plane, band * n * 2);
  }
  return { box, uv, layers: cutBox(job.layers, bw, box, 3) };
}

import sharp from 'sharp';
import { cutBox, maskBox } from './mask-box.ts';
import type { MaskBox } from './warp.ts';

/**
 * A template drawn on this node and handed to the renderer as drawn: its background in shared
 * memory at the frame's size (3 bytes a pixel), its UV map (16-bit, 3 samples) and layers (3 bytes)
 * for a box of the frame only. The renderer takes these into its decoded-template cache without a
 * PNG encode and decode in between: at 2000 px such a round trip holds the drawing, its three PNGs
 * and their decoded copies at once (~60-90 MB left for the collector).
 */
export interface RawTemplate {
  width: number;
  height: number;
  /** Shared memory: the renderer holds it as the template's decoded background. */
  background: Uint8Array;
  /** The drawn box: x0, y0, x1, y1 (px); outside it no mask, neutral shading, UV 0. */
  box: Int32Array;
  uv: Uint16Array;
  layers: Uint8Array;
}

export function isRawTemplate(t: object): t is RawTemplate {
  return 'box' in t && 'width' in t;
}

/** The decoded layers of a drawn template, cut to its mask's box as renderer.ts holds them. */
export interface RawLayers {
  box: MaskBox;
  /** u then v, two planes of the mask's box, in shared memory. */
  uv: Uint16Array;
  /** The layers of the mask's box, in shared memory. */
  layers: Uint8Array;
}

/**
 * The layers a template's PNGs decode to, from the drawing itself: the mask's box found in the
 * drawn box, and the UV map's two bands cut to it by libvips (no per-pixel loop on the event loop).
 */
export async function rawLayers(t: RawTemplate): Promise<RawLayers> {
  const [x0, y0, x1, y1] = t.box;
  const bw = x1 - x0;
  const bh = y1 - y0;
  const inner = await maskBox(Buffer.from(t.layers.buffer, t.layers.byteOffset, t.layers.byteLength), bw, bh);
  const n = inner.width * inner.height;
  const uv = new Uint16Array(new SharedArrayBuffer(n * 4));
  if (n === 0) return { box: inner, uv, layers: new Uint8Array(new SharedArrayBuffer(0)) };
  const bytes = new Uint8Array(uv.buffer);
  for (const band of [0, 1] as const) {
    // Raw 16-bit samples are read as 16-bit RGB only when told (as when they are encoded).
    const plane = await sharp(t.uv, { raw: { width: bw, height: bh, channels: 3 } })
      .toColourspace('rgb16')
      .extractChannel(band)
      .extract(inner)
      .raw({ depth: 'ushort' })
      .toBuffer();
    bytes.set(plane, band * n * 2);
  }
  return {
    box: { ...inner, left: inner.left + x0, top: inner.top + y0 },
    uv,
    layers: cutBox(t.layers, bw, inner, 3),
  };
}

/**
 * How many pixels of the frame the case back's texture spans across and down, from a template's UV
 * map: the artwork is fitted at that size (fit.ts), not at the frame's long edge. A 2000 px stage
 * shows the back ~900 px tall, so a texture 2000 px tall is four times the memory (8 MB of RGBA
 * instead of 2) and is sampled with every other texel skipped.
 *
 * Per pixel of the mask the UV map's steps to the next pixel across and down are inverted: the
 * pixels a whole unit of u (of v) spans there. The need is a high quantile of these, not their
 * maximum: where the print wraps over the case's rounded edge, or at the bleed's clamp, a sliver of
 * pixels spans several times the back's density, and a texture sized for it would be as large as
 * the frame's.
 */
import type { MaskBox } from './warp.ts';

export interface TexelsJob {
  box: MaskBox;
  /** u then v, two planes of the box, 0..65535 (warp.ts). */
  uv: Uint16Array;
  /** mask, shading, highlight per pixel of the box. */
  layers: Uint8Array;
}

/** The share of the back's pixels whose density the texture meets or exceeds. */
export const TEXEL_QUANTILE = 0.98;
/** Densities are counted in whole pixels up to this; a larger one counts here. */
const MAX_DENSITY = 16_384;

/** Pixels per unit of u and of v on the back: [across, down] the texture. [0, 0]: no back. */
export function texelsKernel(job: TexelsJob): [number, number] {
  const { box, uv, layers } = job;
  const w = box.width;
  const n = w * box.height;
  const perU = new Uint32Array(MAX_DENSITY + 1);
  const perV = new Uint32Array(MAX_DENSITY + 1);
  let count = 0;
  for (let y = 0; y + 1 < box.height; y++) {
    for (let x = 0, i = y * w; x + 1 < w; x++, i++) {
      // The pixel and both neighbours wholly on the back: no edge of the mask in the step.
      if (layers[i * 3] < 255 || layers[(i + 1) * 3] < 255 || layers[(i + w) * 3] < 255) continue;
      const a = uv[i + 1] - uv[i];
      const b = uv[i + w] - uv[i];
      const c = uv[n + i + 1] - uv[n + i];
      const d = uv[n + i + w] - uv[n + i];
      const det = Math.abs(a * d - b * c);
      if (det === 0) continue;
      // The inverse of the step matrix: pixels moved per unit of u (its column's length), of v.
      const u = Math.min(MAX_DENSITY, Math.ceil((Math.hypot(c, d) * 65535) / det));
      const v = Math.min(MAX_DENSITY, Math.ceil((Math.hypot(a, b) * 65535) / det));
      perU[u]++;
      perV[v]++;
      count++;
    }
  }
  if (count === 0) return [0, 0];
  return [quantile(perU, count), quantile(perV, count)];
}

function quantile(histogram: Uint32Array, count: number): number {
  const want = Math.ceil(count * TEXEL_QUANTILE);
  let seen = 0;
  for (let k = 0; k < histogram.length; k++) {
    seen += histogram[k];
    if (seen >= want) return k;
  }
  return histogram.length - 1;
}

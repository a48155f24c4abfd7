/**
 * The per-pixel loops of making a template, run on the compositor's threads (pixel-threads.ts) like
 * the warp: each walks every pixel of a 1000 px template, ~20-80 ms of JavaScript that on the event
 * loop would hold every API request of the node for as long (in a profile of renders a drawn
 * template's loops are the longest stalls of the event loop when they run there). The u and v of a
 * UV map are rounded through 32-bit floats before they become 16-bit, as a Float32Array rounds
 * them: the drawings stay byte for byte what FRONTAL_VERSION names.
 */

/** A drawn straight-on template: the rasterised masks in, the UV map and the layers out. */
export interface FrontalJob {
  width: number;
  height: number;
  /** The case back's box on the canvas, in px. */
  x0: number;
  y0: number;
  bw: number;
  bh: number;
  /** One byte a pixel each: the back, the blurred back (the rim's roll), the seam (or none), the sheen. */
  mask: Uint8Array;
  rim: Uint8Array;
  seam: Uint8Array | null;
  shine: Uint8Array;
  /** Out: mask, shading, highlight (3 bytes a pixel). */
  layers: Uint8Array;
  /** Out: the 16-bit UV map's pixels, R = u, G = v, B = 0. */
  uv: Uint16Array;
}

export function frontalKernel(j: FrontalJob): void {
  const { width: W, height: H, x0, y0, bw, bh, mask, rim, seam, shine, layers, uv } = j;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const u = (x + 0.5 - x0) / bw;
      const v = (y + 0.5 - y0) / bh;
      const fu = Math.fround(u);
      const fv = Math.fround(v);
      uv[i * 3] = Math.round((fu < 0 ? 0 : fu > 1 ? 1 : fu) * 65535);
      uv[i * 3 + 1] = Math.round((fv < 0 ? 0 : fv > 1 ? 1 : fv) * 65535);
      uv[i * 3 + 2] = 0;
      const light = 1 - 0.1 * (u + v) * 0.5;
      const roll = 0.55 + (0.45 * rim[i]) / 255;
      const pressed = seam ? 1 - (0.35 * seam[i]) / 255 : 1;
      layers[i * 3] = mask[i];
      layers[i * 3 + 1] = Math.round(255 * light * roll * pressed);
      layers[i * 3 + 2] = shine[i];
    }
  }
}

/** A rectangle template (a rotated rectangle with a mask and an overlay) as UV map and layers. */
export interface PrintAreaJob {
  width: number;
  height: number;
  /** The print area in background pixels and its rotation, clockwise, in radians. */
  x: number;
  y: number;
  areaWidth: number;
  areaHeight: number;
  radians: number;
  /** The mask at the print area's size, one byte a pixel; the overlay RGBA at that size, or none. */
  mask: Uint8Array;
  overlay: Uint8Array | null;
  /** Out, as in FrontalJob. */
  layers: Uint8Array;
  uv: Uint16Array;
}

export function printAreaKernel(j: PrintAreaJob): void {
  const { width: W, height: H, areaWidth: aw, areaHeight: ah, mask, overlay, layers, uv } = j;
  const rad = -j.radians;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  const cx = j.x + aw / 2;
  const cy = j.y + ah / 2;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const dx = x + 0.5 - cx;
      const dy = y + 0.5 - cy;
      const u = (dx * cos - dy * sin) / aw + 0.5;
      const v = (dx * sin + dy * cos) / ah + 0.5;
      const i = y * W + x;
      const fu = Math.fround(u);
      const fv = Math.fround(v);
      uv[i * 3] = Math.round((fu < 0 ? 0 : fu > 1 ? 1 : fu) * 65535);
      uv[i * 3 + 1] = Math.round((fv < 0 ? 0 : fv > 1 ? 1 : fv) * 65535);
      uv[i * 3 + 2] = 0;
      // Outside the print area: no mask, full shading, no highlight.
      layers[i * 3] = 0;
      layers[i * 3 + 1] = 255;
      layers[i * 3 + 2] = 0;
      if (u < 0 || u >= 1 || v < 0 || v >= 1) continue;
      const s = Math.floor(v * ah) * aw + Math.floor(u * aw);
      layers[i * 3] = mask[s];
      if (overlay) {
        const alpha = overlay[s * 4 + 3] / 255;
        const lum = (overlay[s * 4] + overlay[s * 4 + 1] + overlay[s * 4 + 2]) / 3 / 255;
        layers[i * 3 + 1] = Math.round(255 * (1 - alpha * (1 - lum)));
        layers[i * 3 + 2] = lum > 0.5 ? Math.round(255 * alpha * lum) : 0;
      }
    }
  }
}

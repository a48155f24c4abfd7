/**
 * The per-pixel half of a mockup: every output pixel looks up where on the artwork it lies (the UV
 * map), samples the artwork there bilinearly, lays it over the case material, multiplies the
 * shading, screens the highlight and blends the result over the background through the mask.
 * Everything else (decoding, resizing, encoding) is libvips' work; this is the part sharp cannot do.
 */

/** How a case surface looks. Numbers are 0..1 unless said otherwise. */
export interface Material {
  /** Colour where no artwork covers the shell, #rrggbb. */
  baseHex: string;
  /** Colour of the phone under the shell, #rrggbb; shows through as much as `transparency`. */
  phoneHex: string;
  transparency: number;
  /** How strongly the shading layer darkens (1: as the layer holds it). */
  shading: number;
  /** How strongly the highlight layer brightens: gloss high, matte low. */
  highlight: number;
  /** Leather grain depth; 0 for smooth shells. */
  grain: number;
  /** Opacity of the printed ink (a clear shell's ink is a little translucent). */
  ink: number;
  /** A MagSafe ring faintly visible under transparent parts of the artwork. */
  magsafeRing: boolean;
}

/** Where in the frame the case back's mask is (px); outside it every pixel shows the background. */
export interface MaskBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** One warp job: all pixel buffers share memory with the caller (no copy into the worker). */
export interface WarpJob {
  width: number;
  height: number;
  /** RGB, width*height*3: receives the result. */
  out: Uint8Array;
  /** RGB background, width*height*3. */
  background: Uint8Array;
  /** The box `uv` and `layers` cover, row by row; the mask is 0 everywhere outside it. */
  box: MaskBox;
  /** u for every pixel of the box, then v for every pixel, as 0..65535 (u left→right, v top→bottom of the case back). */
  uv: Uint16Array;
  /** mask, shading, highlight per pixel of the box (3 bytes). */
  layers: Uint8Array;
  /** RGBA artwork already fitted to the case back. */
  art: Uint8Array;
  artWidth: number;
  artHeight: number;
  /** Case back size in mm (for the MagSafe ring and the grain scale). */
  backMm: [number, number];
  /**
   * Greyscale grain texture, grainSize² (a power of two), tiled over the back, followed by its
   * mipmap, each level half the one before (grain.ts).
   */
  grainTex: Uint8Array;
  grainSize: number;
  /** [baseR, baseG, baseB, transparency-mixed] and the numbers of Material, flattened. */
  params: Float64Array;
}

export function hexRgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.replace('#', '').slice(0, 6), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** Material → the kernel's flat parameter array. */
export function materialParams(m: Material): Float64Array {
  const base = hexRgb(m.baseHex);
  const phone = hexRgb(m.phoneHex);
  const t = Math.min(1, Math.max(0, m.transparency));
  const mix = base.map((b, i) => b * (1 - t) + phone[i] * t);
  return Float64Array.from([mix[0], mix[1], mix[2], m.shading, m.highlight, m.grain, m.ink, m.magsafeRing ? 1 : 0]);
}

/**
 * The kernel, run on the compositor's threads (pixel-worker.ts) over every pixel of the case's box:
 * no closures and no allocation per pixel.
 */
export function warpKernel(j: WarpJob): void {
  const { width, out, background: bg, uv, layers, art, artWidth: aw, artHeight: ah, params: p } = j;
  const baseR = p[0];
  const baseG = p[1];
  const baseB = p[2];
  const shadingK = p[3];
  const highlightK = p[4];
  const grainK = p[5];
  const ink = p[6];
  const ring = p[7] > 0;
  const gs = j.grainSize;
  const grain = j.grainTex;
  const wMm = j.backMm[0];
  const hMm = j.backMm[1];
  // The grain's mipmap: where each level starts, and how many the texture holds.
  const gOff = new Int32Array(12);
  let gLevels = 0;
  for (let s = gs, o = 0; s >= 1 && o + s * s <= grain.length && gLevels < 12; s >>= 1) {
    gOff[gLevels++] = o;
    o += s * s;
  }
  // Grain texels (6 a mm) per step of u and v in the UV map's 0..65535.
  const gu = (wMm * 6) / 65535;
  const gv = (hMm * 6) / 65535;
  const ringR = Math.min(wMm, hMm) * 0.3;
  const { left, top, width: bw, height: bh } = j.box;
  const n = bw * bh;
  out.set(bg);
  for (let by = 0, i = 0; by < bh; by++) {
    const row = ((top + by) * width + left) * 3;
    for (let bx = 0; bx < bw; bx++, i++) {
      const l = i * 3;
      const m = layers[l];
      if (m === 0) continue;
      const o = row + bx * 3;
      const u = uv[i] / 65535;
      const v = uv[n + i] / 65535;
      // Bilinear sample of the artwork at (u, v); coordinates clamp at the edges.
      let x = u * aw - 0.5;
      let y = v * ah - 0.5;
      if (x < 0) x = 0;
      if (y < 0) y = 0;
      if (x > aw - 1) x = aw - 1;
      if (y > ah - 1) y = ah - 1;
      const x0 = x | 0;
      const y0 = y | 0;
      const x1 = x0 + 1 < aw ? x0 + 1 : x0;
      const y1 = y0 + 1 < ah ? y0 + 1 : y0;
      const fx = x - x0;
      const fy = y - y0;
      const a00 = (y0 * aw + x0) * 4;
      const a10 = (y0 * aw + x1) * 4;
      const a01 = (y1 * aw + x0) * 4;
      const a11 = (y1 * aw + x1) * 4;
      const w00 = (1 - fx) * (1 - fy);
      const w10 = fx * (1 - fy);
      const w01 = (1 - fx) * fy;
      const w11 = fx * fy;
      // Premultiplied, so a transparent pixel's colour does not bleed into its neighbours.
      const aa00 = art[a00 + 3] * w00;
      const aa10 = art[a10 + 3] * w10;
      const aa01 = art[a01 + 3] * w01;
      const aa11 = art[a11 + 3] * w11;
      const alpha = (aa00 + aa10 + aa01 + aa11) / 255;
      let r = 0;
      let g = 0;
      let b = 0;
      if (alpha > 0) {
        r = (art[a00] * aa00 + art[a10] * aa10 + art[a01] * aa01 + art[a11] * aa11) / 255;
        g = (art[a00 + 1] * aa00 + art[a10 + 1] * aa10 + art[a01 + 1] * aa01 + art[a11 + 1] * aa11) / 255;
        b = (art[a00 + 2] * aa00 + art[a10 + 2] * aa10 + art[a01 + 2] * aa01 + art[a11 + 2] * aa11) / 255;
      }
      // Ink over the shell material; what shows of the shell is its base (with the phone behind it).
      const cover = alpha * ink;
      let sr = baseR;
      let sg = baseG;
      let sb = baseB;
      if (ring) {
        const d = Math.hypot((u - 0.5) * wMm, (v - 0.5) * hMm) - ringR;
        if (d > -1.5 && d < 1.5) {
          sr *= 0.82;
          sg *= 0.82;
          sb *= 0.82;
        }
      }
      r = r + sr * (1 - cover);
      g = g + sg * (1 - cover);
      b = b + sb * (1 - cover);
      if (grainK > 0) {
        // The grain tile at 6 texels a mm; it wraps without a seam (grain.ts). A pixel spans as many
        // texels as the UV map moves to the next pixel across or down (whichever is more, the
        // neighbour taken within the mask): the tile is read at the mipmap level whose texels are
        // that size, blending the two nearest (trilinear), so the pebbles are filtered to the
        // output's scale instead of aliasing into speckle; where a texel is larger than a pixel,
        // the full tile, bilinearly.
        const span = grainSpan(uv, layers, n, i, bx, by, bw, bh, gu, gv);
        const t = grainAt(grain, gOff, gLevels, gs, u * wMm * 6, v * hMm * 6, span);
        const k = 1 - grainK + (grainK * t) / 160;
        r *= k;
        g *= k;
        b *= k;
      }
      const sh = 1 - shadingK + (shadingK * layers[l + 1]) / 255;
      // Squared: the broad, faint sheen of a glossy shell (the room it reflects) leaves the print's
      // colours alone, while the hot highlights keep their strength.
      const h0 = layers[l + 2] / 255;
      const hl = highlightK * h0 * h0;
      r = r * sh;
      g = g * sh;
      b = b * sh;
      // Screen: 1 - (1 - c)(1 - h).
      r = 255 - (255 - r) * (1 - hl);
      g = 255 - (255 - g) * (1 - hl);
      b = 255 - (255 - b) * (1 - hl);
      const mk = m / 255;
      const rr = bg[o] + (r - bg[o]) * mk;
      const gg = bg[o + 1] + (g - bg[o + 1]) * mk;
      const bb = bg[o + 2] + (b - bg[o + 2]) * mk;
      out[o] = rr > 255 ? 255 : rr < 0 ? 0 : rr + 0.5;
      out[o + 1] = gg > 255 ? 255 : gg < 0 ? 0 : gg + 0.5;
      out[o + 2] = bb > 255 ? 255 : bb < 0 ? 0 : bb + 0.5;
    }
  }
}

/**
 * How many grain texels (squared) the pixel spans: the UV map's step to the next pixel across or
 * down (whichever is more), the neighbour taken within the mask.
 */
function grainSpan(
  uv: Uint16Array,
  layers: Uint8Array,
  n: number,
  i: number,
  bx: number,
  by: number,
  bw: number,
  bh: number,
  gu: number,
  gv: number,
): number {
  const l = i * 3;
  let dux = 0;
  let dvx = 0;
  let duy = 0;
  let dvy = 0;
  if (bx + 1 < bw && layers[l + 3] > 0) {
    dux = uv[i + 1] - uv[i];
    dvx = uv[n + i + 1] - uv[n + i];
  } else if (bx > 0 && layers[l - 3] > 0) {
    dux = uv[i] - uv[i - 1];
    dvx = uv[n + i] - uv[n + i - 1];
  }
  if (by + 1 < bh && layers[l + bw * 3] > 0) {
    duy = uv[i + bw] - uv[i];
    dvy = uv[n + i + bw] - uv[n + i];
  } else if (by > 0 && layers[l - bw * 3] > 0) {
    duy = uv[i] - uv[i - bw];
    dvy = uv[n + i] - uv[n + i - bw];
  }
  const ax = dux * gu;
  const ay = dvx * gv;
  const cx = duy * gu;
  const cy = dvy * gv;
  const fx2 = ax * ax + ay * ay;
  const fy2 = cx * cx + cy * cy;
  return fx2 > fy2 ? fx2 : fy2;
}

/**
 * The grain at (tx, ty) in texels of the full tile, read at the mipmap level whose texels are the
 * pixel's span, blending the two nearest levels (trilinear); below 0.71 texels a pixel the full
 * tile alone, bilinearly.
 */
function grainAt(
  grain: Uint8Array,
  gOff: Int32Array,
  gLevels: number,
  gs: number,
  tx0: number,
  ty0: number,
  span: number,
): number {
  let lod = span > 0.7071 ? 0.5 * Math.log2(span * 1.4142) : 0;
  if (lod > gLevels - 1) lod = gLevels - 1;
  const lv = lod | 0;
  const lf = lod - lv;
  let t = 0;
  for (let e = 0; e < 2; e++) {
    const level = lv + e;
    const wt = e === 0 ? 1 - lf : lf;
    if (wt <= 0 || level >= gLevels) continue;
    const size = gs >> level;
    const sm = size - 1;
    const base = gOff[level];
    // Texel centres of level k lie at (i + 0.5) * 2^k - 0.5 in texels of the full tile.
    const scale = 1 / (1 << level);
    const tx = (tx0 + 0.5) * scale - 0.5;
    const ty = (ty0 + 0.5) * scale - 0.5;
    const ix = Math.floor(tx);
    const iy = Math.floor(ty);
    const gx = tx - ix;
    const gy = ty - iy;
    const g0 = base + (iy & sm) * size;
    const g1 = base + ((iy + 1) & sm) * size;
    const c0 = ix & sm;
    const c1 = (ix + 1) & sm;
    const t0 = grain[g0 + c0] + (grain[g0 + c1] - grain[g0 + c0]) * gx;
    const t1 = grain[g1 + c0] + (grain[g1 + c1] - grain[g1 + c0]) * gx;
    t += wt * (t0 + (t1 - t0) * gy);
  }
  return t;
}

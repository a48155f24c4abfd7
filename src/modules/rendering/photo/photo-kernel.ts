/**
 * The case on a partner's photo: every pixel of the box around the marked corners is taken back
 * through the inverse homography to the case's back (mm, seen from behind), tested against the
 * case's rounded outline and camera cut-out (four samples a pixel on the edges), and written as the
 * template's UV map and layers. The shading is the photo's own light: its blurred luminance under
 * the case relative to the brightest of it, rolled off over the case's rounded edge; the light's
 * direction (the luminance's slope across the back) throws the soft contact shadow onto the photo.
 * Runs on the compositor's threads (pixel-worker.ts).
 */
export interface PhotoJob {
  width: number;
  height: number;
  /** Pixel box to work on (x0, y0, x1, y1), exclusive ends: the case and its shadow. */
  box: Int32Array;
  /** In: the photo (RGB); out: with the case's shadow and, in the camera cut-out, the phone. */
  background: Uint8Array;
  /** The photo's blurred luminance over the box (one byte a pixel, row by row). */
  light: Uint8Array;
  /** Pixel (x, y, 1) -> back (u, v, w) in the unit square, row by row. */
  inv: Float64Array;
  /** Case numbers: width mm, height mm, corner radius mm, stitched (0/1), bezel (0/1). */
  p: Float64Array;
  /** The camera cut-out and what shows in it: holeParams in stage/case-mesh.ts. */
  hole: Float64Array;
  /** Out: 16-bit u, v, 0 per pixel of the box. */
  uv: Uint16Array;
  /** Out: mask, shading, highlight per pixel of the box. */
  layers: Uint8Array;
}

/** Signed distance to a rounded rectangle (centre, half sizes, radius): negative inside. */
function sdRound(x: number, y: number, cx: number, cy: number, hx: number, hy: number, r: number): number {
  const qx = Math.abs(x - cx) - (hx - r);
  const qy = Math.abs(y - cy) - (hy - r);
  const ox = Math.max(qx, 0);
  const oy = Math.max(qy, 0);
  return Math.sqrt(ox * ox + oy * oy) + Math.min(Math.max(qx, qy), 0) - r;
}

const smooth = (t: number) => (t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t));

/** The colour the camera cut-out shows at (U, V) mm: the phone's back, its island and lenses. */
function holeColour(h: Float64Array, U: number, V: number, d: number, px: number, out: Float64Array): void {
  let r = h[10] * 0.78;
  let g = h[11] * 0.78;
  let b = h[12] * 0.78;
  const di = h[6] === 1 ? Math.hypot(U - h[7], V - h[8]) - h[9] : sdRound(U, V, h[7], h[8], h[13], h[14], h[15]);
  const ai = Math.max(0, Math.min(1, 0.5 - di / px));
  r += (h[10] - r) * ai;
  g += (h[11] - g) * ai;
  b += (h[12] - b) * ai;
  for (let k = 0; k < h[20]; k++) {
    const dist = Math.hypot(U - h[24 + k * 3], V - h[25 + k * 3]);
    const R = h[26 + k * 3];
    for (const [edge, c] of [
      [R, [43, 46, 51]],
      [0.72 * R, [11, 12, 16]],
      [0.42 * R, [20, 26, 42]],
    ] as const) {
      const a = Math.max(0, Math.min(1, 0.5 - (dist - edge) / px));
      r += (c[0] - r) * a;
      g += (c[1] - g) * a;
      b += (c[2] - b) * a;
    }
  }
  // The cut-out's wall, in the camera rim's colour, in shadow.
  const wall = Math.max(0, Math.min(1, 0.5 - (-0.9 - d) / px));
  out[0] = r + (h[16] * 0.55 - r) * wall;
  out[1] = g + (h[17] * 0.55 - g) * wall;
  out[2] = b + (h[18] * 0.55 - b) * wall;
}

/** One job's back geometry: the inverse homography, the case's size and corners, and a scratch point. */
interface Geometry {
  m: Float64Array;
  cW: number;
  cH: number;
  rc: number;
  /** Back coordinates (mm) of the last `toBack`. */
  back: Float64Array;
}

/** Back coordinates (mm) of a screen point into `g.back`; false beyond the photo's horizon. */
function toBack(g: Geometry, x: number, y: number): boolean {
  const m = g.m;
  const w = m[6] * x + m[7] * y + m[8];
  if (w <= 1e-12) return false;
  g.back[0] = ((m[0] * x + m[1] * y + m[2]) / w) * g.cW;
  g.back[1] = ((m[3] * x + m[4] * y + m[5]) / w) * g.cH;
  return true;
}

/** Signed distance (mm) from a back point to the case's outline: negative inside. */
const outline = (g: Geometry, U: number, V: number) => sdRound(U, V, g.cW / 2, g.cH / 2, g.cW / 2, g.cH / 2, g.rc);

/** The photo's light under the case, as the shading reads it. */
interface Light {
  /** Its brightest level. */
  lMax: number;
  /** How far (mm) the contact shadow is thrown, and toward where on the back (mm). */
  reach: number;
  offU: number;
  offV: number;
}

/**
 * The light under the case: its brightest level and its slope across the back (least squares
 * about the back's centre), which points toward the light.
 */
function lightUnderCase(j: PhotoJob, g: Geometry): Light {
  const [bx0, by0, bx1, by1] = j.box;
  const bw = bx1 - bx0;
  const { cW, cH, back } = g;
  let lMax = 1;
  let sum = 0;
  let n = 0;
  let su = 0;
  let sv = 0;
  let suu = 0;
  let svv = 0;
  for (let y = by0; y < by1; y++)
    for (let x = bx0; x < bx1; x++) {
      if (!toBack(g, x + 0.5, y + 0.5) || outline(g, back[0], back[1]) > 0) continue;
      const L = j.light[(y - by0) * bw + (x - bx0)];
      const du = back[0] - cW / 2;
      const dv = back[1] - cH / 2;
      if (L > lMax) lMax = L;
      sum += L;
      n++;
      su += L * du;
      sv += L * dv;
      suu += du * du;
      svv += dv * dv;
    }
  const mean = n ? sum / n : lMax;
  const slopeU = suu ? su / suu : 0;
  const slopeV = svv ? sv / svv : 0;
  // Relative change of the light across the case's length: no slope, a shadow straight down.
  const slope = Math.hypot(slopeU, slopeV);
  const reach = Math.min(4, (slope * cH * 25) / Math.max(1, mean));
  const offU = slope > 0 ? (-slopeU / slope) * reach : 0;
  const offV = slope > 0 ? (-slopeV / slope) * reach : 0;
  return { lMax, reach, offU, offV };
}

/** How much of pixel (x, y) the case covers: one sample far from its outline, four near it. */
function coverage(g: Geometry, x: number, y: number, dOut: number, px: number): number {
  if (dOut > 2 * px) return 0;
  if (dOut < -2 * px) return 1;
  let k = 0;
  for (let s = 0; s < 4; s++)
    if (toBack(g, x + 0.25 + 0.5 * (s & 1), y + 0.25 + 0.5 * (s >> 1)) && outline(g, g.back[0], g.back[1]) <= 0) k++;
  return k / 4;
}

/**
 * The shading and highlight of the case at back point (U, V), `dOut` from its outline, a pixel
 * being `px` mm, where the photo's light is `L` of its brightest: into `out` (0..1 each, unclamped).
 */
function shadeAt(
  j: PhotoJob,
  g: Geometry,
  lt: Light,
  U: number,
  V: number,
  dOut: number,
  px: number,
  L: number,
  out: Float64Array,
) {
  let shade = 0.45 + 0.55 * L ** 0.8;
  // The rounded edge rolls away from the light over its last 1.6 mm.
  const inside = -dOut;
  shade *= 0.6 + 0.4 * smooth(inside / 1.6);
  // A sheen along the edge on the light's side, and the photo's own bright spots.
  const gu = outline(g, U + 0.05, V) - outline(g, U - 0.05, V);
  const gv = outline(g, U, V + 0.05) - outline(g, U, V - 0.05);
  const gl = Math.hypot(gu, gv) || 1;
  const facing = lt.reach > 0 ? Math.max(0, -(gu * lt.offU + gv * lt.offV) / gl / lt.reach) : 0.5;
  let high = 0.35 * facing * Math.max(0, 1 - Math.abs(inside - 0.7) / 0.7);
  high += 0.3 * Math.max(0, (L - 0.8) / 0.2) ** 2;
  if (j.p[3] > 0) {
    // Stitched: a seam 1.6 mm inside the edge, dashes pressed into the leather.
    const line = Math.max(0, Math.min(1, 0.5 - (Math.abs(inside - 1.6) - 0.2) / px));
    const phase = (U + V) / 2.6 - Math.floor((U + V) / 2.6);
    if (phase < 0.6) {
      shade *= 1 - 0.4 * line;
      high += 0.12 * line;
    }
  }
  if (j.p[4] > 0 && inside < 1.4) {
    // A bezel: a raised lip along the edge, its inner slope in shadow, its crest catching the light.
    const k = 1 - inside / 1.4;
    shade *= 0.78 + 0.22 * k;
    high += 0.3 * Math.max(0, 1 - Math.abs(k - 0.85) / 0.15);
  }
  out[0] = shade;
  out[1] = high;
}

/**
 * A clear shell's rounded rim (`p[5]` mm wide) is not printed: the phone's side shows through it,
 * lit like the case, tinted by the shell, with its gloss (drawn into the background at `o`, weight
 * `w` of the pixel). Returns the printed share of the pixel (1 for every other case).
 */
function clearRim(j: PhotoJob, bg: Uint8Array, o: number, dOut: number, px: number, w: number, sh: Float64Array) {
  const rim = j.p[5];
  if (!(rim > 0)) return 1;
  const printed = Math.max(0, Math.min(1, 0.5 - (dOut + rim) / px));
  const a = w * (1 - printed);
  if (a <= 0) return printed;
  const clear = j.p[6];
  const h = j.hole;
  const lit = Math.min(1.15, 0.3 + 0.7 * sh[0]);
  const gl = Math.min(1, sh[1] * 0.9);
  for (let c = 0; c < 3; c++) {
    const col = (h[10 + c] * 0.82 * clear + h[21 + c] * (1 - clear)) * lit;
    const v = 255 - (255 - Math.min(255, col)) * (1 - gl);
    bg[o + c] = Math.max(0, Math.min(255, bg[o + c] * (1 - a) + v * a + 0.5));
  }
  return printed;
}

export function photoKernel(j: PhotoJob): void {
  const { width: W, hole: h, background: bg, light, uv, layers } = j;
  const [bx0, by0, bx1, by1] = j.box;
  const bw = bx1 - bx0;
  const g: Geometry = { m: j.inv, cW: j.p[0], cH: j.p[1], rc: j.p[2], back: new Float64Array(2) };
  const { back, cW, cH } = g;
  const lt = lightUnderCase(j, g);
  const hc = new Float64Array(3);
  const sh = new Float64Array(2);
  for (let y = by0; y < by1; y++) {
    for (let x = bx0; x < bx1; x++) {
      const q = (y - by0) * bw + (x - bx0);
      const o = (y * W + x) * 3;
      uv[q * 3] = 0;
      uv[q * 3 + 1] = 0;
      uv[q * 3 + 2] = 0;
      layers[q * 3] = 0;
      layers[q * 3 + 1] = 255;
      layers[q * 3 + 2] = 0;
      // Size of this pixel on the back (mm), from its neighbours.
      if (!toBack(g, x + 1.5, y + 0.5)) continue;
      const ax = back[0];
      const ay = back[1];
      if (!toBack(g, x + 0.5, y + 1.5)) continue;
      const bxm = back[0];
      const bym = back[1];
      if (!toBack(g, x + 0.5, y + 0.5)) continue;
      const U = back[0];
      const V = back[1];
      const px = Math.max(Math.hypot(ax - U, ay - V), Math.hypot(bxm - U, bym - V), 1e-3);
      const dOut = outline(g, U, V);
      const cov = coverage(g, x, y, dOut, px);
      if (cov < 1) {
        // The photo under and around the case: contact darkening and the light's soft shadow.
        const d0 = Math.max(0, dOut);
        const d1 = outline(g, U - lt.offU, V - lt.offV);
        const soft = smooth((d1 + 2) / 10);
        const f = (1 - 0.45 * Math.exp(-d0 / 1.8)) * (1 - 0.3 * (1 - soft));
        for (let c = 0; c < 3; c++) bg[o + c] = bg[o + c] * f + 0.5;
      }
      if (cov <= 0) continue;
      const dHole = h[0] === 1 ? Math.hypot(U - h[1], V - h[2]) - h[3] : sdRound(U, V, h[1], h[2], h[3], h[4], h[5]);
      const inHole = Math.max(0, Math.min(1, 0.5 - dHole / px));
      if (inHole > 0) {
        holeColour(h, U, V, dHole, px, hc);
        for (let c = 0; c < 3; c++) bg[o + c] = Math.max(0, Math.min(255, hc[c] + 0.5));
      }
      shadeAt(j, g, lt, U, V, dOut, px, light[q] / lt.lMax, sh);
      const printed = clearRim(j, bg, o, dOut, px, cov * (1 - inHole), sh);
      const u = U / cW;
      const v = V / cH;
      uv[q * 3] = Math.round((u < 0 ? 0 : Math.min(u, 1)) * 65535);
      uv[q * 3 + 1] = Math.round((v < 0 ? 0 : Math.min(v, 1)) * 65535);
      layers[q * 3] = Math.round(cov * (1 - inHole) * printed * 255);
      layers[q * 3 + 1] = Math.round(Math.min(1, sh[0]) * 255);
      layers[q * 3 + 2] = Math.round(Math.min(1, sh[1]) * 255);
    }
  }
}

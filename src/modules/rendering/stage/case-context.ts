/**
 * The case kernel's shared parts: one job's numbers unpacked once, the camera ray, the print
 * coordinates of a world point and the light model (stage/case-kernel.ts uses them per pixel).
 */
export interface CaseJob {
  width: number;
  height: number;
  /** Pixel box to work on (x0, y0, x1, y1), exclusive ends: the case and its shadow. */
  box: Int32Array;
  /** In: the plate; out: the plate with the case's shadow and, in the camera cut-out, the phone. */
  background: Uint8Array;
  /** Out: 16-bit u, v, 0 per pixel of the box (row by row). */
  uv: Uint16Array;
  /** Out: mask, shading, highlight per pixel of the box. */
  layers: Uint8Array;
  /** eye(3), right(3), up(3), forward(3), f, cx, cy. */
  cam: Float64Array;
  /** Mesh vertices, VERTEX_STRIDE numbers each: sx, sy, 1/z, then U, V, nx, ny, nz divided by z. */
  verts: Float64Array;
  /** Visible rim triangles: three vertex indices each. */
  tris: Int32Array;
  /** Numbers of the case: see CASE_PARAMS in stage/case-mesh.ts. */
  p: Float64Array;
  /** Camera cut-out and what shows in it: see holeParams in stage/case-mesh.ts. */
  hole: Float64Array;
  /** The leather grain tile (grain.ts), grainSize²: the side wall of a leather case shows it. */
  grainTex: Uint8Array;
  grainSize: number;
}

export const VERTEX_STRIDE = 8;

/** Signed distance from (x, y) to a rounded rectangle centred at (cx, cy), half sizes hx, hy, radius r. */
export function sdRound(x: number, y: number, cx: number, cy: number, hx: number, hy: number, r: number) {
  const qx = Math.abs(x - cx) - (hx - r);
  const qy = Math.abs(y - cy) - (hy - r);
  const ox = qx > 0 ? qx : 0;
  const oy = qy > 0 ? qy : 0;
  return Math.sqrt(ox * ox + oy * oy) + Math.min(Math.max(qx, qy), 0) - r;
}

/** One job's numbers, unpacked once, and the scratch the helpers write into. */
export interface Ctx {
  W: number;
  bx0: number;
  by0: number;
  bx1: number;
  by1: number;
  bw: number;
  c: Float64Array;
  h: Float64Array;
  ex: number;
  ey: number;
  ez: number;
  cW: number;
  cH: number;
  D: number;
  re: number;
  rc: number;
  bleed: number;
  co: number;
  si: number;
  lx: number;
  ly: number;
  lz: number;
  amb: number;
  specK: number;
  stitched: boolean;
  bezel: boolean;
  clear: number;
  /** Leather: the grain's depth on the side wall (0: a plain wall), its seam, the wall's height (mm). */
  grain: number;
  wallSeam: boolean;
  wallMm: number;
  gt: Uint8Array;
  gs: number;
  flatLight: number;
  /** Print coordinates (mm) of the last `printOf`. */
  pr: Float64Array;
  /** Direction of the last `ray`. */
  rd: Float64Array;
  /** Shading and highlight of the last `light`. */
  sh: Float64Array;
  /** Colour of the last `holeColour`. */
  rgb: Float64Array;
}

export function context(j: CaseJob): Ctx {
  const { p, cam: c } = j;
  const lz = p[10];
  const amb = p[11];
  return {
    W: j.width,
    bx0: j.box[0],
    by0: j.box[1],
    bx1: j.box[2],
    by1: j.box[3],
    bw: j.box[2] - j.box[0],
    c,
    h: j.hole,
    ex: c[0],
    ey: c[1],
    ez: c[2],
    cW: p[0],
    cH: p[1],
    D: p[2],
    re: p[3],
    rc: p[4],
    bleed: p[5],
    co: p[6],
    si: p[7],
    lx: p[8],
    ly: p[9],
    lz,
    amb,
    specK: p[12],
    stitched: p[13] > 0,
    bezel: p[14] > 0,
    clear: p[15],
    grain: p[16],
    wallSeam: p[17] > 0,
    wallMm: p[18],
    gt: j.grainTex,
    gs: j.grainSize,
    flatLight: amb + (1 - amb) * lz,
    pr: new Float64Array(2),
    rd: new Float64Array(3),
    sh: new Float64Array(2),
    rgb: new Float64Array(3),
  };
}

/** Print coordinates (mm, from the back's top-left seen from behind) of a world point, into k.pr. */
export function printOf(k: Ctx, x: number, y: number) {
  k.pr[0] = x * k.co + y * k.si + k.cW / 2;
  k.pr[1] = k.cH / 2 - (-x * k.si + y * k.co);
}

/** Ray direction through a screen point, into k.rd. */
export function ray(k: Ctx, sx: number, sy: number) {
  const c = k.c;
  const dx = c[9] * c[12] + c[3] * (sx - c[13]) - c[6] * (sy - c[14]);
  const dy = c[10] * c[12] + c[4] * (sx - c[13]) - c[7] * (sy - c[14]);
  const dz = c[11] * c[12] + c[5] * (sx - c[13]) - c[8] * (sy - c[14]);
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  k.rd[0] = dx / l;
  k.rd[1] = dy / l;
  k.rd[2] = dz / l;
}

/**
 * Half-vector light model, into k.sh: shading relative to the flat back, highlight from a specular
 * lobe and a Fresnel sheen (the edge catches the bright surroundings). The lobe is narrow (n·h to
 * the 200th): a flat back's normal is the same everywhere, so a wide lobe lights all of it at once
 * in a view near the mirror angle, a veil screened over the whole print.
 */
export function light(k: Ctx, nx: number, ny: number, nz: number, vx: number, vy: number, vz: number) {
  const diff = Math.max(0, nx * k.lx + ny * k.ly + nz * k.lz);
  k.sh[0] = (k.amb * (0.8 + 0.2 * nz) + (1 - k.amb) * diff) / k.flatLight;
  let hx = k.lx + vx;
  let hy = k.ly + vy;
  let hz = k.lz + vz;
  const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
  hx /= hl;
  hy /= hl;
  hz /= hl;
  const nh = Math.max(0, nx * hx + ny * hy + nz * hz);
  const nv = Math.max(0, nx * vx + ny * vy + nz * vz);
  const fres = (1 - nv) ** 5;
  k.sh[1] = k.specK * nh ** 200 + 0.55 * fres;
}

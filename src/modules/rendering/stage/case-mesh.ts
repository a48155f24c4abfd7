import type { CaseType } from '../../catalog/casetypes.ts';
import type { DeviceGeometry } from '../../catalog/devices.ts';
import { CLEAR_RIM, FOOT_MM, caseOutline, caseProfile } from '../../catalog/geometry.ts';
import { hexRgb } from '../warp.ts';
import { type StageCamera, type V3, normalised } from './stages.ts';

/**
 * The case as the stage sees it, from the model's parametric geometry: the printed back (flat, with
 * its camera cut-out), a rounded edge of radius `edgeMm` and a straight side wall down to the floor.
 * The flatbed prints the case from above: the back and the rounded edge to the outline carry the
 * artwork as it lies on the print area seen from above; the side wall is not printed. `bleedMm` is
 * the fit rule's bleed (the print file's margin beyond the outline), which no surface shows.
 */
export interface CaseSolid {
  widthMm: number;
  heightMm: number;
  depthMm: number;
  edgeMm: number;
  cornerMm: number;
  bleedMm: number;
  /**
   * How much of the phone shows through the shell (0..1). A clear shell (0.5 and more) is printed
   * on its flat back only: its rim stays unprinted and shows the phone's side through it.
   */
  clear: number;
}

export { CLEAR_RIM };

export function caseSolid(device: DeviceGeometry, caseType: CaseType): CaseSolid {
  const { outline: o, depthMm, edgeMm, bleedMm } = caseProfile(device, caseType);
  const clear = caseType.material.transparency >= CLEAR_RIM ? caseType.material.transparency : 0;
  return { widthMm: o.widthMm, heightMm: o.heightMm, depthMm, edgeMm, cornerMm: o.cornerRadiusMm, bleedMm, clear };
}

/** The printable area with its bleed, mm: what the artwork is fitted to. */
export const bleedBackMm = (s: CaseSolid): [number, number] => [s.widthMm + 2 * s.bleedMm, s.heightMm + 2 * s.bleedMm];

/** The flat back's inner outline: points and outward normals, clockwise seen from behind (y down). */
function innerRing(s: CaseSolid): Array<{ x: number; y: number; nx: number; ny: number }> {
  const r = s.cornerMm;
  const ri = r - s.edgeMm;
  const W = s.widthMm;
  const H = s.heightMm;
  const corners: Array<[number, number, number]> = [
    [W - r, r, -Math.PI / 2],
    [W - r, H - r, 0],
    [r, H - r, Math.PI / 2],
    [r, r, Math.PI],
  ];
  const out: Array<{ x: number; y: number; nx: number; ny: number }> = [];
  for (let c = 0; c < 4; c++) {
    const [cx, cy, a0] = corners[c];
    for (let i = 0; i <= 10; i++) {
      const a = a0 + (i / 10) * (Math.PI / 2);
      out.push({ x: cx + ri * Math.cos(a), y: cy + ri * Math.sin(a), nx: Math.cos(a), ny: Math.sin(a) });
    }
    // The straight side to the next corner, in steps of at most 4 mm (small triangles: short loops).
    const [nx0, ny0, na] = corners[(c + 1) % 4];
    const from = out[out.length - 1];
    const to = { x: nx0 + ri * Math.cos(na), y: ny0 + ri * Math.sin(na) };
    const steps = Math.max(1, Math.ceil(Math.hypot(to.x - from.x, to.y - from.y) / 4));
    for (let k = 1; k < steps; k++)
      out.push({
        x: from.x + ((to.x - from.x) * k) / steps,
        y: from.y + ((to.y - from.y) * k) / steps,
        nx: from.nx,
        ny: from.ny,
      });
  }
  return out;
}

/**
 * The rim's cross-section: outward offset, height, normal (outward, up) and the print distance
 * beyond the flat back: on the edge its offset seen from above (where the flatbed's ink lands), on
 * the side wall beyond the outline (which marks it unprinted).
 */
function profile(s: CaseSolid) {
  const rows: Array<{ out: number; z: number; no: number; nz: number; unrolled: number }> = [];
  const KR = 8;
  for (let k = 0; k <= KR; k++) {
    const phi = (k / KR) * (Math.PI / 2);
    rows.push({
      out: s.edgeMm * Math.sin(phi),
      z: s.depthMm - s.edgeMm + s.edgeMm * Math.cos(phi),
      no: Math.sin(phi),
      nz: Math.cos(phi),
      unrolled: s.edgeMm * Math.sin(phi),
    });
  }
  const top = s.depthMm - s.edgeMm;
  for (const f of [0.5, 1]) {
    const z = top - (top - FOOT_MM) * f;
    rows.push({ out: s.edgeMm, z, no: 1, nz: 0, unrolled: s.edgeMm + (top - z) });
  }
  return rows;
}

/** Print coordinates → world (the case centred on the origin, turned by `turn` radians). */
export function caseToWorld(s: CaseSolid, turn: number) {
  const co = Math.cos(turn);
  const si = Math.sin(turn);
  return (x: number, y: number, z: number): V3 => {
    const lx = x - s.widthMm / 2;
    const ly = s.heightMm / 2 - y;
    return [lx * co - ly * si, lx * si + ly * co, z];
  };
}

export interface CaseMesh {
  verts: Float64Array;
  tris: Int32Array;
  /** Screen box of the whole case (px). */
  bounds: { x0: number; y0: number; x1: number; y1: number };
}

/** The rim's triangles that face the camera, projected, with perspective-correct attributes. */
export function caseMesh(s: CaseSolid, turn: number, cam: StageCamera): CaseMesh {
  const ring = innerRing(s);
  const rows = profile(s);
  const world = caseToWorld(s, turn);
  const co = Math.cos(turn);
  const si = Math.sin(turn);
  const n = ring.length;
  const verts = new Float64Array(n * rows.length * 8);
  const pos: V3[] = [];
  const nrm: V3[] = [];
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let r = 0; r < rows.length; r++)
    for (let i = 0; i < n; i++) {
      const q = ring[i];
      const row = rows[r];
      const X = q.x + q.nx * row.out;
      const Y = q.y + q.ny * row.out;
      const p = world(X, Y, row.z);
      // The normal in print coordinates (y down) → world.
      const lnx = q.nx * row.no;
      const lny = -q.ny * row.no;
      const nw: V3 = [lnx * co - lny * si, lnx * si + lny * co, row.nz];
      const [sx, sy, z] = cam.project(p);
      const k = (r * n + i) * 8;
      const iz = 1 / z;
      verts.set(
        [
          sx,
          sy,
          iz,
          (q.x + q.nx * row.unrolled) * iz,
          (q.y + q.ny * row.unrolled) * iz,
          nw[0] * iz,
          nw[1] * iz,
          nw[2] * iz,
        ],
        k,
      );
      pos.push(p);
      nrm.push(nw);
      x0 = Math.min(x0, sx);
      y0 = Math.min(y0, sy);
      x1 = Math.max(x1, sx);
      y1 = Math.max(y1, sy);
    }
  const tris: number[] = [];
  const facing = (a: number, b: number, c: number) => {
    const centre: V3 = [0, 1, 2].map((k) => (pos[a][k] + pos[b][k] + pos[c][k]) / 3) as V3;
    const normal = normalised([0, 1, 2].map((k) => nrm[a][k] + nrm[b][k] + nrm[c][k]) as V3);
    const toEye = [0, 1, 2].map((k) => cam.eye[k] - centre[k]);
    return normal[0] * toEye[0] + normal[1] * toEye[1] + normal[2] * toEye[2] > 0;
  };
  for (let r = 0; r + 1 < rows.length; r++)
    for (let i = 0; i < n; i++) {
      const a = r * n + i;
      const b = r * n + ((i + 1) % n);
      const c = (r + 1) * n + i;
      const d = (r + 1) * n + ((i + 1) % n);
      if (facing(a, b, d)) tris.push(a, b, d);
      if (facing(a, d, c)) tris.push(a, d, c);
    }
  return { verts, tris: Int32Array.from(tris), bounds: { x0, y0, x1, y1 } };
}

/** The numbers the kernel reads about the case (`p`). */
export function caseParams(
  s: CaseSolid,
  turn: number,
  light: V3,
  ambient: number,
  specular: number,
  look: { stitched: boolean; bezel: boolean; grain: number; wallSeam: boolean },
): Float64Array {
  const L = normalised(light);
  return Float64Array.from([
    s.widthMm,
    s.heightMm,
    s.depthMm,
    s.edgeMm,
    s.cornerMm,
    s.bleedMm,
    Math.cos(turn),
    Math.sin(turn),
    L[0],
    L[1],
    L[2],
    ambient,
    specular,
    look.stitched ? 1 : 0,
    look.bezel ? 1 : 0,
    s.clear,
    look.grain,
    look.wallSeam ? 1 : 0,
    s.depthMm - s.edgeMm - FOOT_MM,
  ]);
}

/**
 * The camera cut-out and what shows through it (`hole`): the phone's back, island and lenses, and
 * the colours of the parts around it. Layout: 0 circle, 1-5 the cut-out (centre, half sizes or
 * radius, corner), 6-9 the island (circle, centre, half width), 10-12 the phone's RGB, 13-15 the
 * island (half sizes, corner), 16-18 the camera rim's RGB (the cut-out's wall), 19 unused, 20 the
 * number of lenses, 21-23 the side wall's RGB, then x, y, radius of each lens from 24. The rim and
 * the side wall follow the colourway's part colours, the shell's colour where it names none.
 */
export function holeParams(device: DeviceGeometry, caseType: CaseType, phoneHex: string, shellHex: string) {
  const o = caseOutline(device, caseType);
  const h = o.hole;
  const c = device.camera;
  const m = caseType.material;
  const ix = caseType.wallMm + c.xMm;
  const iy = caseType.wallMm + c.yMm;
  const circle = h.shape === 'circle' ? 1 : 0;
  const out = new Float64Array(24 + 3 * c.lenses.length);
  out.set([
    circle,
    h.xMm + h.widthMm / 2,
    h.yMm + h.heightMm / 2,
    circle ? h.widthMm / 2 : h.widthMm / 2,
    h.heightMm / 2,
    h.radiusMm,
    c.shape === 'circle' ? 1 : 0,
    ix + c.widthMm / 2,
    iy + c.heightMm / 2,
    c.widthMm / 2,
    ...hexRgb(phoneHex),
    c.widthMm / 2,
    c.heightMm / 2,
    Math.min(c.cornerRadiusMm, c.widthMm / 2, c.heightMm / 2),
    ...hexRgb(m.cameraRingHex ?? shellHex),
    0,
    c.lenses.length,
    ...hexRgb(m.bezelHex ?? shellHex),
  ]);
  for (const [i, l] of c.lenses.entries()) out.set([ix + l.xMm, iy + l.yMm, l.diameterMm / 2], 24 + i * 3);
  return out;
}

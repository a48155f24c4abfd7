/**
 * The plate's floor: its procedural texture (paper, oak, marble) and how the props shade it (soft
 * shadows toward the key light, contact darkening). Used per pixel by stage/plate-kernel.ts.
 */
/** Numbers per prop in the packed props (see stage/template.ts). */
export const PROP_STRIDE = 16;

/** What the kernel's helpers share: the camera, the light and the props of one job. */
export interface Scene {
  c: Float64Array;
  ex: number;
  ey: number;
  ez: number;
  lx: number;
  ly: number;
  lz: number;
  amb: number;
  props: Float64Array;
  nProps: number;
  floor: number;
}

function hash(x: number, y: number) {
  let h = (Math.imul(x | 0, 374761393) + Math.imul(y | 0, 668265263)) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** Smooth value noise. */
function noise(x: number, y: number) {
  const xi = Math.floor(x);
  const yi = Math.floor(y);
  const fx = x - xi;
  const fy = y - yi;
  const sx = fx * fx * (3 - 2 * fx);
  const sy = fy * fy * (3 - 2 * fy);
  const a = hash(xi, yi);
  const b = hash(xi + 1, yi);
  const d = hash(xi, yi + 1);
  const e = hash(xi + 1, yi + 1);
  return a + (b - a) * sx + (d - a) * sy + (a - b - d + e) * sx * sy;
}

function fbm(x: number, y: number) {
  return (
    noise(x, y) * 0.5 +
    noise(x * 2.03, y * 2.03) * 0.25 +
    noise(x * 4.1, y * 4.1) * 0.125 +
    noise(x * 8.2, y * 8.2) * 0.0625
  );
}

const smooth = (e0: number, e1: number, v: number) => {
  const t = Math.max(0, Math.min(1, (v - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
};

/** Board width across the grain, mm. */
const OAK_BOARD = 118;

/**
 * Flat-sawn oak boards laid along the grain. Each board cuts its own log: the growth rings are
 * circles around a pith below the board whose depth drifts slowly along the grain, so the surface
 * shows nested cathedral arches. Every perturbation is low-frequency (the arches stay smooth); ring
 * spacing, the width and depth of the soft darker band of each ring, and each board's tint vary.
 * Fine fibre streaks and ray flecks run along the grain; a soft groove marks the seams.
 */
function oakColour(x: number, y: number, col: Float64Array) {
  const a = x * 0.94 + y * 0.34;
  const b = -x * 0.34 + y * 0.94;
  const across = (b + 1000) / OAK_BOARD;
  const board = Math.floor(across);
  const inBoard = across - board;
  const h1 = hash(board, 11);
  const h2 = hash(board, 23);
  const h3 = hash(board, 37);
  // The pith: off-centre across the board, its depth drifting along the grain (the arches' apexes).
  const u = (inBoard - 0.5) * OAK_BOARD + (h1 - 0.5) * 90 + (noise(a * 0.003, b * 0.004 + board * 7) - 0.5) * 8;
  const d = 30 + 35 * h2 + (a + 150 * h3) * (h3 > 0.5 ? 0.11 : -0.11) + (noise(a * 0.005 + board * 3, 0.5) - 0.5) * 14;
  const r = Math.sqrt(u * u + d * d + 16);
  // Ring phase: about 4.5 mm a ring on average, some rings wider than others (always increasing).
  const phase = r * (0.19 + 0.06 * h1) + 1.3 * noise(r * 0.07, board * 5 + 0.5);
  const p = phase - Math.floor(phase);
  // The ring's darker band: a raised cosine around 0.8 of the ring (no step anywhere). One smooth
  // value along the rings sets its width and depth: a wider band is a darker one.
  const v = noise(phase * 0.45, board * 3 + 2.5);
  const w = 0.22 + 0.18 * v;
  let t = p - 0.8;
  t -= Math.round(t);
  const band = Math.abs(t) < w ? 0.5 + 0.5 * Math.cos((Math.PI * t) / w) : 0;
  const depth = 0.07 + 0.07 * v;
  const fibre = noise(a * 0.012, b * 1.3) * 0.6 + noise(a * 0.025, b * 3.1) * 0.4;
  const fleck = smooth(0.7, 0.95, noise(a * 0.22, b * 2.2 + 3));
  const tone = noise(a * 0.004 + 11, b * 0.02);
  // A soft groove where two boards meet.
  const edge = Math.min(inBoard, 1 - inBoard) * OAK_BOARD;
  const seam = edge < 3 ? Math.exp(-(edge * edge) / 0.5) : 0;
  const k = (0.92 + 0.08 * tone - depth * band - 0.045 * fibre - 0.035 * fleck - 0.16 * seam) * (0.95 + 0.1 * h3);
  const warm = (hash(board, 53) - 0.5) * 0.06;
  col[0] = 200 * k * (1 + warm * 0.3);
  col[1] = 153 * k;
  col[2] = 106 * k * (1 - warm);
}

/** The floor's own colour at (x, y) into col: 0 paper, 1 oak, 2 marble. */
export function floorColour(kind: number, x: number, y: number, col: Float64Array) {
  if (kind === 1) {
    oakColour(x, y, col);
  } else if (kind === 2) {
    // Marble: soft grey veins along a distorted diagonal wave, and a fainter second family.
    const t = fbm(x * 0.006, y * 0.006) * 6;
    const v1 = Math.abs(Math.sin((x * 0.6 + y * 0.8) * 0.012 + t));
    const v2 = Math.abs(Math.sin((x * 0.9 - y * 0.4) * 0.02 + t * 1.6 + 1.3));
    const vein = 1 - Math.min(1, v1 / 0.22);
    const faint = 1 - Math.min(1, v2 / 0.12);
    const cloud = fbm(x * 0.015 + 7, y * 0.015) * 0.05;
    const k = 1 - 0.16 * vein * vein * vein - 0.06 * faint * faint - cloud;
    col[0] = 238 * k;
    col[1] = 237 * k;
    col[2] = 233 * k;
  } else {
    // Paper: warm white, a touch cooler and darker toward the back.
    const back = Math.max(0, Math.min(1, (y + 200) / 500));
    col[0] = 246 - 12 * back;
    col[1] = 240 - 8 * back;
    col[2] = 232 - 2 * back;
  }
}

/** A sphere's shadow and contact darkening on the floor point (x, y), as one factor. */
function sphereOnFloor(s: Scene, o: number, x: number, y: number) {
  const { props, lx, ly, lz } = s;
  const cz = props[o + 3];
  const r = props[o + 4];
  // Closest approach of the ray toward the light to the centre.
  const dx = props[o + 1] - x;
  const dy = props[o + 2] - y;
  const t = dx * lx + dy * ly + cz * lz;
  const qx = dx - t * lx;
  const qy = dy - t * ly;
  const qz = cz - t * lz;
  const d = Math.sqrt(qx * qx + qy * qy + qz * qz);
  const pen = r * 0.25 + 0.12 * Math.max(0, t);
  const k = t <= 0 ? 1 : Math.min(1, Math.max(0, (d - r + pen) / (2 * pen)));
  const dd = Math.sqrt(dx * dx + dy * dy + cz * cz);
  const ao = 1 - 0.5 * Math.min(1, (r * r) / (dd * dd)) * (cz / dd);
  return (0.35 + 0.65 * k * k * (3 - 2 * k)) * ao;
}

/** An upright cylinder's shadow and contact darkening on the floor point (x, y). */
function cylinderOnFloor(s: Scene, o: number, x: number, y: number) {
  const { props, lx, ly, lz } = s;
  const cx = props[o + 1];
  const cy = props[o + 2];
  const r = props[o + 3];
  const h = props[o + 4];
  // The ray's ground track from (x, y) while it is below the cylinder's top.
  const tmax = h / lz;
  const g2 = lx * lx + ly * ly;
  let t = g2 > 0 ? ((cx - x) * lx + (cy - y) * ly) / g2 : 0;
  if (t < 0) t = 0;
  if (t > tmax) t = tmax;
  const qx = x + lx * t - cx;
  const qy = y + ly * t - cy;
  const d = Math.sqrt(qx * qx + qy * qy);
  const pen = 1.5 + 0.1 * t * lz;
  const k = Math.min(1, Math.max(0, (d - r + pen) / (2 * pen)));
  const dx = x - cx;
  const dy = y - cy;
  const e = Math.max(0, Math.sqrt(dx * dx + dy * dy) - r);
  return (0.35 + 0.65 * k * k * (3 - 2 * k)) * (1 - 0.42 * Math.exp(-e / (0.18 * r + 3)));
}

/** A box's shadow (its footprint swept toward the light, softened) and contact darkening. */
function boxOnFloor(s: Scene, o: number, x: number, y: number) {
  const { props, lx, ly, lz } = s;
  const cx = props[o + 1];
  const cy = props[o + 2];
  const co = props[o + 3];
  const si = props[o + 4];
  const hx = props[o + 5];
  const hy = props[o + 6];
  const hz = props[o + 7];
  // In the box's frame.
  const px = (x - cx) * co + (y - cy) * si;
  const py = -(x - cx) * si + (y - cy) * co;
  const tx = lx * co + ly * si;
  const ty = -lx * si + ly * co;
  let inside = 0;
  for (let k = 0; k <= 4; k++) {
    const t = (hz / lz) * (k / 4);
    const ax = Math.abs(px + tx * t) - hx;
    const ay = Math.abs(py + ty * t) - hy;
    const d = Math.max(ax, ay);
    inside = Math.max(inside, Math.min(1, Math.max(0, 0.5 - d / 3)));
  }
  const ax = Math.max(0, Math.abs(px) - hx);
  const ay = Math.max(0, Math.abs(py) - hy);
  return (1 - 0.6 * inside) * (1 - 0.35 * Math.exp(-Math.sqrt(ax * ax + ay * ay) / 3));
}

/** Shadow and contact darkening of a floor point by all the props. */
export function floorLight(s: Scene, x: number, y: number) {
  let f = 1;
  for (let p = 0; p < s.nProps; p++) {
    const o = p * PROP_STRIDE;
    const kind = s.props[o];
    f *= kind === 0 ? sphereOnFloor(s, o, x, y) : kind === 1 ? cylinderOnFloor(s, o, x, y) : boxOnFloor(s, o, x, y);
  }
  return f;
}

/**
 * The plate of a stage: floor, props, key light, their shadows and contact shading, ray-cast per
 * pixel (analytic spheres, upright cylinders, boxes; a procedural paper, oak or marble floor). No
 * random sampling anywhere, so flat areas carry no render noise; an ordered dither of half a level
 * keeps gradients from banding. Runs on the compositor's threads (pixel-worker.ts).
 */
import { PROP_STRIDE, type Scene, floorColour, floorLight } from './plate-floor.ts';

export interface PlateJob {
  width: number;
  height: number;
  /** Out: RGB. */
  out: Uint8Array;
  /** eye(3), right(3), up(3), forward(3), f, cx, cy. */
  cam: Float64Array;
  /** Toward the key light, normalised; then the ambient share. */
  light: Float64Array;
  /** 0 paper, 1 oak, 2 marble. */
  floor: number;
  /** Props, PROP_STRIDE numbers each (see stage/plate.ts). */
  props: Float64Array;
  /** Each prop's screen box (x0, y0, x1, y1): pixels there are sampled four times (smooth edges). */
  rects: Float64Array;
}

export { PROP_STRIDE };

/** The nearest hit so far of the ray being traced: distance, prop (-1: floor), normal, top face. */
interface Hit {
  t: number;
  prop: number;
  nx: number;
  ny: number;
  nz: number;
  cap: boolean;
}

function setHit(h: Hit, t: number, prop: number, nx: number, ny: number, nz: number, cap: boolean) {
  h.t = t;
  h.prop = prop;
  h.nx = nx;
  h.ny = ny;
  h.nz = nz;
  h.cap = cap;
}

function hitSphere(s: Scene, p: number, d: Float64Array, h: Hit) {
  const o = p * PROP_STRIDE;
  const ox = s.ex - s.props[o + 1];
  const oy = s.ey - s.props[o + 2];
  const oz = s.ez - s.props[o + 3];
  const r = s.props[o + 4];
  const b = ox * d[0] + oy * d[1] + oz * d[2];
  const disc = b * b - (ox * ox + oy * oy + oz * oz - r * r);
  if (disc < 0) return;
  const t = -b - Math.sqrt(disc);
  if (t > 0 && t < h.t) setHit(h, t, p, (ox + t * d[0]) / r, (oy + t * d[1]) / r, (oz + t * d[2]) / r, false);
}

function hitCylinder(s: Scene, p: number, d: Float64Array, h: Hit) {
  const o = p * PROP_STRIDE;
  const ox = s.ex - s.props[o + 1];
  const oy = s.ey - s.props[o + 2];
  const r = s.props[o + 3];
  const top = s.props[o + 4];
  // Top cap first (the camera looks down).
  if (d[2] < 0) {
    const t = (top - s.ez) / d[2];
    const hx = ox + t * d[0];
    const hy = oy + t * d[1];
    if (t > 0 && t < h.t && hx * hx + hy * hy <= r * r) {
      setHit(h, t, p, 0, 0, 1, true);
      return;
    }
  }
  const a = d[0] * d[0] + d[1] * d[1];
  const b = ox * d[0] + oy * d[1];
  const disc = b * b - a * (ox * ox + oy * oy - r * r);
  if (disc < 0 || a === 0) return;
  const t = (-b - Math.sqrt(disc)) / a;
  const z = s.ez + t * d[2];
  if (t > 0 && t < h.t && z >= 0 && z <= top) setHit(h, t, p, (ox + t * d[0]) / r, (oy + t * d[1]) / r, 0, false);
}

/** A box turned about the vertical: the slab test in its own frame. */
function hitBox(s: Scene, p: number, d: Float64Array, h: Hit) {
  const o = p * PROP_STRIDE;
  const co = s.props[o + 3];
  const si = s.props[o + 4];
  const ox0 = s.ex - s.props[o + 1];
  const oy0 = s.ey - s.props[o + 2];
  const lo = [-s.props[o + 5], -s.props[o + 6], 0];
  const hi = [s.props[o + 5], s.props[o + 6], s.props[o + 7]];
  const org = [ox0 * co + oy0 * si, -ox0 * si + oy0 * co, s.ez];
  const dir = [d[0] * co + d[1] * si, -d[0] * si + d[1] * co, d[2]];
  let t0 = -1e12;
  let t1 = 1e12;
  let axis = 0;
  for (let k = 0; k < 3; k++) {
    if (Math.abs(dir[k]) < 1e-12) {
      if (org[k] < lo[k] || org[k] > hi[k]) return;
      continue;
    }
    let ta = (lo[k] - org[k]) / dir[k];
    let tb = (hi[k] - org[k]) / dir[k];
    if (ta > tb) {
      const x = ta;
      ta = tb;
      tb = x;
    }
    if (ta > t0) {
      t0 = ta;
      axis = k;
    }
    if (tb < t1) t1 = tb;
  }
  if (t0 > t1 || t0 <= 0 || t0 >= h.t) return;
  const sgn = -Math.sign(dir[axis]);
  const lnx = axis === 0 ? sgn : 0;
  const lny = axis === 1 ? sgn : 0;
  setHit(h, t0, p, lnx * co - lny * si, lnx * si + lny * co, axis === 2 ? 1 : 0, axis === 2);
}

/** The floor's colour where the ray meets it, lit, into rgb. */
function shadeFloor(s: Scene, d: Float64Array, t: number, rgb: Float64Array) {
  if (d[2] >= 0) {
    rgb[0] = rgb[1] = rgb[2] = 240;
    return;
  }
  const fx = s.ex + t * d[0];
  const fy = s.ey + t * d[1];
  floorColour(s.floor, fx, fy, rgb);
  const flat = s.amb + (1 - s.amb) * s.lz;
  const light = (s.amb + (1 - s.amb) * s.lz * floorLight(s, fx, fy)) / flat;
  // A broad pool of light around the subject, falling off toward the frame's corners.
  const k = light * (0.9 + 0.1 * Math.exp(-(fx * fx + fy * fy) / (2 * 260 * 260)));
  rgb[0] *= k;
  rgb[1] *= k;
  rgb[2] *= k;
}

/** A prop's colour where the ray meets it: diffuse, low contact darkening, a specular lobe. */
function shadeProp(s: Scene, d: Float64Array, h: Hit, rgb: Float64Array) {
  const o = h.prop * PROP_STRIDE;
  const kind = s.props[o];
  // Colour offsets per kind: sphere rgb at 5; cylinder side at 5, cap at 8; box side at 8, top at 11.
  const k = kind === 0 ? 5 : kind === 1 ? (h.cap ? 8 : 5) : h.cap ? 11 : 8;
  const gloss = kind === 0 ? s.props[o + 8] : kind === 1 ? s.props[o + 11] : 0.1;
  const { nx, ny, nz } = h;
  const pz = s.ez + h.t * d[2];
  const diff = Math.max(0, nx * s.lx + ny * s.ly + nz * s.lz);
  // Near the floor a prop is darker (the floor's contact occlusion, seen from the prop's side).
  const low = 0.72 + 0.28 * Math.min(1, pz / 10);
  const lit = (0.5 + 0.12 * nz + 0.55 * diff) * low;
  let hx = s.lx - d[0];
  let hy = s.ly - d[1];
  let hz = s.lz - d[2];
  const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
  hx /= hl;
  hy /= hl;
  hz /= hl;
  const spec = gloss * Math.max(0, nx * hx + ny * hy + nz * hz) ** (6 + 90 * gloss) * 255;
  rgb[0] = s.props[o + k] * lit + spec;
  rgb[1] = s.props[o + k + 1] * lit + spec;
  rgb[2] = s.props[o + k + 2] * lit + spec;
}

const dir = new Float64Array(3);
const hit: Hit = { t: 0, prop: -1, nx: 0, ny: 0, nz: 1, cap: false };

/** Traces the ray through the screen point (sx, sy); its colour into rgb. */
function trace(s: Scene, sx: number, sy: number, rgb: Float64Array) {
  const c = s.c;
  // forward * f + right * x - up * y.
  let dx = c[9] * c[12] + c[3] * (sx - c[13]) - c[6] * (sy - c[14]);
  let dy = c[10] * c[12] + c[4] * (sx - c[13]) - c[7] * (sy - c[14]);
  let dz = c[11] * c[12] + c[5] * (sx - c[13]) - c[8] * (sy - c[14]);
  const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
  dx /= dl;
  dy /= dl;
  dz /= dl;
  dir[0] = dx;
  dir[1] = dy;
  dir[2] = dz;
  setHit(hit, dz < 0 ? -s.ez / dz : 1e12, -1, 0, 0, 1, false);
  for (let p = 0; p < s.nProps; p++) {
    const kind = s.props[p * PROP_STRIDE];
    if (kind === 0) hitSphere(s, p, dir, hit);
    else if (kind === 1) hitCylinder(s, p, dir, hit);
    else hitBox(s, p, dir, hit);
  }
  if (hit.prop < 0) shadeFloor(s, dir, hit.t, rgb);
  else shadeProp(s, dir, hit, rgb);
}

const BAYER = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5];

export function plateKernel(j: PlateJob): void {
  const { width: W, height: H, out, cam: c, light: Lt, props, rects } = j;
  const s: Scene = {
    c,
    ex: c[0],
    ey: c[1],
    ez: c[2],
    lx: Lt[0],
    ly: Lt[1],
    lz: Lt[2],
    amb: Lt[3],
    props,
    nProps: props.length / PROP_STRIDE,
    floor: j.floor,
  };
  const rgb = new Float64Array(3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let many = false;
      for (let k = 0; k < rects.length; k += 4)
        if (x >= rects[k] && x <= rects[k + 2] && y >= rects[k + 1] && y <= rects[k + 3]) many = true;
      let r = 0;
      let g = 0;
      let b = 0;
      if (many) {
        for (let q = 0; q < 4; q++) {
          trace(s, x + 0.25 + 0.5 * (q & 1), y + 0.25 + 0.5 * (q >> 1), rgb);
          r += rgb[0];
          g += rgb[1];
          b += rgb[2];
        }
        r /= 4;
        g /= 4;
        b /= 4;
      } else {
        trace(s, x + 0.5, y + 0.5, rgb);
        r = rgb[0];
        g = rgb[1];
        b = rgb[2];
      }
      const d = BAYER[(y & 3) * 4 + (x & 3)] / 16 + 0.03;
      const i = (y * W + x) * 3;
      out[i] = r + d > 255 ? 255 : r + d < 0 ? 0 : r + d;
      out[i + 1] = g + d > 255 ? 255 : g + d < 0 ? 0 : g + d;
      out[i + 2] = b + d > 255 ? 255 : b + d < 0 ? 0 : b + d;
    }
  }
}

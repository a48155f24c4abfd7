/**
 * A very small orthographic 3-D scene drawn as SVG: convex prisms (a rounded phone case, a camera
 * island, a charger) whose side walls are shaded per facet from a fixed studio light, and whose caps
 * carry flat artwork through an affine matrix. Orthographic projection keeps every planar face an
 * affine image of itself, which SVG draws exactly; no perspective divide is needed at product scale.
 */
export type Vec3 = [number, number, number];
export type Pt = [number, number];
export type Rgb = [number, number, number];

export const hexToRgb = (hex: string): Rgb => {
  const h = hex.replace('#', '');
  const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h;
  return [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) as Rgb;
};
export const rgbHex = (c: Rgb) =>
  `#${c
    .map((v) =>
      Math.round(Math.max(0, Math.min(255, v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
export const mix = (a: Rgb, b: Rgb, t: number): Rgb => [0, 1, 2].map((i) => a[i] + (b[i] - a[i]) * t) as Rgb;
export const scale = (c: Rgb, k: number): Rgb => c.map((v) => v * k) as Rgb;
export const luminance = (c: Rgb) => (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;

const n2 = (x: number) => Number(x.toFixed(2));

/** A rounded rectangle as a polygon (clockwise on screen, y down), `perCorner` points per quarter. */
export function roundedRectPoints(x: number, y: number, w: number, h: number, r: number, perCorner = 16): Pt[] {
  r = Math.max(0.01, Math.min(r, w / 2, h / 2));
  const corners: Array<[number, number, number]> = [
    [x + w - r, y + r, -Math.PI / 2],
    [x + w - r, y + h - r, 0],
    [x + r, y + h - r, Math.PI / 2],
    [x + r, y + r, Math.PI],
  ];
  const pts: Pt[] = [];
  for (const [cx, cy, a0] of corners)
    for (let i = 0; i <= perCorner; i++) {
      const a = a0 + (i / perCorner) * (Math.PI / 2);
      pts.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
    }
  return pts;
}

export function circlePoints(cx: number, cy: number, r: number, n = 48): Pt[] {
  return Array.from({ length: n }, (_, i) => {
    const a = -Math.PI / 2 + (i / n) * 2 * Math.PI;
    return [cx + r * Math.cos(a), cy + r * Math.sin(a)] as Pt;
  });
}

export const pathOf = (pts: Pt[]) => `M${pts.map(([x, y]) => `${n2(x)},${n2(y)}`).join('L')}Z`;

/** Camera: yaw turns the object about its vertical axis, pitch tips its top away from the viewer. */
export interface View {
  yawDeg: number;
  pitchDeg: number;
  rollDeg?: number;
}

export class Camera {
  readonly m: number[][];
  constructor(view: View) {
    const y = (view.yawDeg * Math.PI) / 180;
    const p = (view.pitchDeg * Math.PI) / 180;
    const r = ((view.rollDeg ?? 0) * Math.PI) / 180;
    const ry = [
      [Math.cos(y), 0, Math.sin(y)],
      [0, 1, 0],
      [-Math.sin(y), 0, Math.cos(y)],
    ];
    const rx = [
      [1, 0, 0],
      [0, Math.cos(p), -Math.sin(p)],
      [0, Math.sin(p), Math.cos(p)],
    ];
    const rz = [
      [Math.cos(r), -Math.sin(r), 0],
      [Math.sin(r), Math.cos(r), 0],
      [0, 0, 1],
    ];
    this.m = mul(rz, mul(rx, ry));
  }
  /** View-space direction of a world vector (z toward the viewer). */
  dir(v: Vec3): Vec3 {
    const m = this.m;
    return [0, 1, 2].map((i) => m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2]) as Vec3;
  }
  project(p: Vec3): Pt {
    const d = this.dir(p);
    return [d[0], d[1]];
  }
  /** SVG matrix that maps a plane z = const, drawn in its own x/y (mm), to the screen. */
  planeMatrix(z: number): string {
    const m = this.m;
    const [e, f] = this.project([0, 0, z]);
    return `matrix(${[m[0][0], m[1][0], m[0][1], m[1][1], e, f].map((v) => n2(v * 1000) / 1000).join(',')})`;
  }
  facing(normal: Vec3): number {
    return this.dir(normal)[2];
  }
}

function mul(a: number[][], b: number[][]): number[][] {
  return a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
}

/** A soft studio key light from the upper left, toward the viewer (view space). */
const LIGHT: Vec3 = normalize([-0.45, -0.65, 0.62]);
function normalize(v: Vec3): Vec3 {
  const l = Math.hypot(...v);
  return v.map((x) => x / l) as Vec3;
}

export interface Finish {
  base: Rgb;
  /** 0 matte … 1 mirror-like: strength and tightness of the highlight. */
  gloss: number;
  /** Side walls see-through: drawn with this opacity. */
  opacity?: number;
}

/** Shade of a facet with view-space normal `n`: ambient + Lambert + a Blinn highlight. */
export function shade(f: Finish, n: Vec3): Rgb {
  const nn = normalize(n);
  const diffuse = Math.max(0, nn[0] * LIGHT[0] + nn[1] * LIGHT[1] + nn[2] * LIGHT[2]);
  const h = normalize([LIGHT[0], LIGHT[1], LIGHT[2] + 1]);
  const spec = Math.max(0, nn[0] * h[0] + nn[1] * h[1] + nn[2] * h[2]) ** (8 + 60 * f.gloss) * (0.15 + 0.75 * f.gloss);
  const lit = scale(f.base, 0.52 + 0.6 * diffuse);
  return mix(lit, [255, 255, 255], Math.min(1, spec));
}

/**
 * A straight prism: a convex outline (mm, x right, y down) between z0 and z1. Its wall is rounded
 * across the depth: `bands` strips whose normals turn from the back cap to the front cap, which is
 * what makes a case edge read as a soft pillow rather than a cut slab; each strip is a gradient
 * between the shading at its edges, so the strips show no contour steps.
 */
export interface Prism {
  outline: Pt[];
  z0: number;
  z1: number;
  finish: Finish;
  /** 0: a flat wall; 1: a full half-round profile. */
  roundness?: number;
  bands?: number;
}

/** Outward 2-D normal of each outline segment (the outline is clockwise on screen). */
function segmentNormals(pts: Pt[]): Pt[] {
  return pts.map((p, i) => {
    const q = pts[(i + 1) % pts.length];
    const dx = q[0] - p[0];
    const dy = q[1] - p[1];
    const l = Math.hypot(dx, dy) || 1;
    return [dy / l, -dx / l];
  });
}

/** The visible side-wall facets of a prism as SVG polygons. */
export function prismWalls(cam: Camera, pr: Prism): string {
  const bands = pr.bands ?? 10;
  const round = pr.roundness ?? 0.7;
  const normals = segmentNormals(pr.outline);
  // Gradient ids unique to this prism in a picture that holds several.
  const tag = `w${(Math.abs(pr.z0 * 977 + pr.z1 * 131 + pr.outline[0][0] * 17 + pr.outline[0][1] * 7) | 0).toString(36)}${pr.outline.length.toString(36)}`;
  const out: string[] = [];
  for (let b = 0; b < bands; b++) {
    const za = pr.z1 - ((pr.z1 - pr.z0) * b) / bands;
    const zb = pr.z1 - ((pr.z1 - pr.z0) * (b + 1)) / bands;
    // Normal tilt across the wall: toward +z near the top cap, toward -z near the bottom; at the
    // band's middle (whether it faces the camera) and at its two edges (its shading runs between
    // them, so neighbouring bands meet in the same colour instead of stepping).
    const tiltAt = (f: number) => -(f * 2 - 1) * round * (Math.PI / 2.2);
    const tilt = tiltAt((b + 0.5) / bands);
    for (let i = 0; i < pr.outline.length; i++) {
      const [nx, ny] = normals[i];
      const nWorld: Vec3 = [nx * Math.cos(tilt), ny * Math.cos(tilt), Math.sin(tilt)];
      if (cam.facing([nx, ny, 0]) <= 1e-3 && cam.facing(nWorld) <= 1e-3) continue;
      const p = pr.outline[i];
      const q = pr.outline[(i + 1) % pr.outline.length];
      const quad = [
        cam.project([p[0], p[1], za]),
        cam.project([q[0], q[1], za]),
        cam.project([q[0], q[1], zb]),
        cam.project([p[0], p[1], zb]),
      ];
      const colourAt = (f: number) => {
        const t = tiltAt(f);
        return rgbHex(shade(pr.finish, cam.dir([nx * Math.cos(t), ny * Math.cos(t), Math.sin(t)])));
      };
      const ca = colourAt(b / bands);
      const cb = colourAt((b + 1) / bands);
      // The gradient runs across the band, square to its edges (parallel on screen), so its colour
      // is constant along each edge and matches the next band's there.
      const ex = quad[1][0] - quad[0][0];
      const ey = quad[1][1] - quad[0][1];
      const vx = quad[3][0] - quad[0][0];
      const vy = quad[3][1] - quad[0][1];
      const along = (vx * ex + vy * ey) / (ex * ex + ey * ey || 1);
      const [x1, y1] = [n2(quad[0][0]), n2(quad[0][1])];
      const [x2, y2] = [n2(quad[0][0] + vx - along * ex), n2(quad[0][1] + vy - along * ey)];
      const id = `${tag}-${b}-${i}`;
      // The stroke in the fill colour closes the hairline seams antialiasing leaves between facets.
      out.push(
        `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"><stop offset="0" stop-color="${ca}"/><stop offset="1" stop-color="${cb}"/></linearGradient><path d="${pathOf(quad)}" fill="url(#${id})" stroke="url(#${id})" stroke-width="0.12"/>`,
      );
    }
  }
  const op = pr.finish.opacity ?? 1;
  return op < 1 ? `<g opacity="${op}">${out.join('')}</g>` : out.join('');
}

/** Screen-space bounding box of points. */
export function bounds(pts: Pt[]): { minX: number; minY: number; maxX: number; maxY: number } {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of pts) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  return { minX, minY, maxX, maxY };
}

/** Every projected corner of a prism (for fitting the picture). */
export const prismCorners = (cam: Camera, pr: Prism): Pt[] =>
  pr.outline.flatMap(([x, y]) => [cam.project([x, y, pr.z0]), cam.project([x, y, pr.z1])]);

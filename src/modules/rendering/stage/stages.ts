/**
 * The 3D stages: scenes whose plate (floor, props, light) and case are both rendered by the
 * service from numbers, so every model with geometry gets them, the day it is imported. World units
 * are millimetres; the floor is z = 0 and the case lies on it back up, centred on the origin.
 */
export type V3 = [number, number, number];

export type FloorKind = 'paper' | 'oak' | 'marble';

/** A prop the plate renders: spheres, upright cylinders (a cap colour on top), boxes turned about z. */
export type Prop =
  | { kind: 'sphere'; at: V3; r: number; rgb: V3; gloss: number }
  | { kind: 'cylinder'; at: [number, number]; r: number; h: number; rgb: V3; cap: V3; gloss: number }
  | { kind: 'box'; at: [number, number]; turnDeg: number; size: V3; rgb: V3; top: V3 };

export interface StageView {
  key: 'left' | 'right';
  name: string;
  /** Camera around the origin: azimuth (0 = from the front, +x to the right), elevation, distance. */
  azimuthDeg: number;
  elevationDeg: number;
  distanceMm: number;
  /** Vertical field of view. */
  fovDeg: number;
  /** The case's turn on the floor. */
  caseTurnDeg: number;
}

export interface Stage {
  key: string;
  name: string;
  description: string;
  floor: FloorKind;
  /** Direction toward the key light (normalised when used). */
  light: V3;
  /** Ambient share of the light (0..1). */
  ambient: number;
  props: Prop[];
  views: [StageView, StageView];
}

const rgb = (hex: string): V3 => {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};

const views = (turn: number): [StageView, StageView] => [
  {
    key: 'left',
    name: 'angled from the left',
    azimuthDeg: -24,
    elevationDeg: 56,
    distanceMm: 470,
    fovDeg: 30,
    caseTurnDeg: turn,
  },
  {
    key: 'right',
    name: 'angled from the right',
    azimuthDeg: 26,
    elevationDeg: 60,
    distanceMm: 470,
    fovDeg: 30,
    caseTurnDeg: -turn,
  },
];

/** Props stand clear of the largest case (about 85 x 170 mm) and inside both views' frames. */
export const STAGES: Stage[] = [
  {
    key: 'studio',
    name: 'Studio sweep',
    description: 'The case on warm white paper with a sage plinth, a pearl and a peach ball, soft key light.',
    floor: 'paper',
    light: [-0.5, 0.35, 0.8],
    ambient: 0.42,
    props: [
      { kind: 'cylinder', at: [-92, 58], r: 24, h: 42, rgb: rgb('#9fb59a'), cap: rgb('#a9bea4'), gloss: 0.15 },
      { kind: 'sphere', at: [-92, 58, 53], r: 11, rgb: rgb('#f3ece4'), gloss: 0.7 },
      { kind: 'sphere', at: [86, 66, 17], r: 17, rgb: rgb('#e9b49a'), gloss: 0.2 },
    ],
    views: views(-8),
  },
  {
    key: 'desk',
    name: 'Oak desk',
    description: 'The case on an oak desk beside a mug of coffee and a notebook, warm light from the side.',
    floor: 'oak',
    light: [0.55, 0.3, 0.78],
    ambient: 0.38,
    props: [
      { kind: 'cylinder', at: [96, 62], r: 30, h: 70, rgb: rgb('#eeeae3'), cap: rgb('#3b2416'), gloss: 0.6 },
      { kind: 'box', at: [-104, -18], turnDeg: 10, size: [70, 100, 9], rgb: rgb('#e9e4d8'), top: rgb('#33465c') },
    ],
    views: views(10),
  },
  {
    key: 'marble',
    name: 'Marble top',
    description: 'The case on white marble with a terracotta pot and a gold bead, bright daylight.',
    floor: 'marble',
    light: [-0.35, 0.5, 0.8],
    ambient: 0.5,
    props: [
      { kind: 'cylinder', at: [-92, 64], r: 25, h: 36, rgb: rgb('#c06a45'), cap: rgb('#4f3a2a'), gloss: 0.1 },
      { kind: 'sphere', at: [-87, 60, 47], r: 14, rgb: rgb('#5f8f4e'), gloss: 0.2 },
      { kind: 'sphere', at: [-101, 71, 43], r: 11, rgb: rgb('#6c9b57'), gloss: 0.2 },
      { kind: 'sphere', at: [84, -62, 8], r: 8, rgb: rgb('#d4ad55'), gloss: 0.95 },
    ],
    views: views(-6),
  },
];

export function stage(key: string): Stage | undefined {
  return STAGES.find((s) => s.key === key);
}

const norm = (v: V3): V3 => {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
};
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** A pinhole camera in pixels: x right, y down. */
export class StageCamera {
  readonly eye: V3;
  readonly right: V3;
  readonly up: V3;
  readonly forward: V3;
  readonly f: number;
  readonly cx: number;
  readonly cy: number;
  constructor(view: StageView, size: { width: number; height: number }, target: V3 = [0, 0, 0]) {
    const az = (view.azimuthDeg * Math.PI) / 180;
    const el = (view.elevationDeg * Math.PI) / 180;
    const d = view.distanceMm;
    this.eye = [
      target[0] + d * Math.cos(el) * Math.sin(az),
      target[1] - d * Math.cos(el) * Math.cos(az),
      target[2] + d * Math.sin(el),
    ];
    this.forward = norm([target[0] - this.eye[0], target[1] - this.eye[1], target[2] - this.eye[2]]);
    this.right = norm(cross(this.forward, [0, 0, 1]));
    this.up = cross(this.right, this.forward);
    // The field of view is kept for the shorter edge, so a portrait or landscape output cuts nothing.
    this.f = Math.min(size.width, size.height) / 2 / Math.tan((view.fovDeg * Math.PI) / 360);
    this.cx = size.width / 2;
    this.cy = size.height / 2;
  }
  /** Screen x, y and the depth along the view axis. */
  project(p: V3): [number, number, number] {
    const d: V3 = [p[0] - this.eye[0], p[1] - this.eye[1], p[2] - this.eye[2]];
    const z = dot(d, this.forward);
    return [this.cx + (this.f * dot(d, this.right)) / z, this.cy - (this.f * dot(d, this.up)) / z, z];
  }
  /** For the kernels: eye, right, up, forward, f, cx, cy. */
  packed(): Float64Array {
    return Float64Array.from([...this.eye, ...this.right, ...this.up, ...this.forward, this.f, this.cx, this.cy]);
  }
}

export const normalised = norm;

/** The largest case a stage holds (mm, with its depth): framing leaves room for it. */
const LARGEST_CASE: V3 = [90, 176, 16];
/** Share of the frame kept clear on every side. */
export const FRAME_MARGIN = 0.04;

/**
 * The view pulled back (in 4 % steps) until every prop and the largest case lie inside the frame's
 * margin: props are never cut by the frame edge, whatever the output's aspect.
 */
export function framed(st: Stage, view: StageView, size: { width: number; height: number }): StageView {
  const t = (view.caseTurnDeg * Math.PI) / 180;
  const caseHull: V3[] = [];
  for (const sx of [-1, 1])
    for (const sy of [-1, 1])
      for (const z of [0, LARGEST_CASE[2]]) {
        const x = (sx * LARGEST_CASE[0]) / 2;
        const y = (sy * LARGEST_CASE[1]) / 2;
        caseHull.push([x * Math.cos(t) - y * Math.sin(t), x * Math.sin(t) + y * Math.cos(t), z]);
      }
  const points = [...caseHull, ...st.props.flatMap(propHull)];
  let v = view;
  for (let i = 0; i < 40; i++) {
    const cam = new StageCamera(v, size);
    const inside = points.every((p) => {
      const [x, y, z] = cam.project(p);
      return (
        z > 0 &&
        x >= size.width * FRAME_MARGIN &&
        x <= size.width * (1 - FRAME_MARGIN) &&
        y >= size.height * FRAME_MARGIN &&
        y <= size.height * (1 - FRAME_MARGIN)
      );
    });
    if (inside) return v;
    v = { ...v, distanceMm: v.distanceMm * 1.04 };
  }
  return v;
}

/** A prop's outermost points (for the frame test: props are never cut by the frame). */
export function propHull(p: Prop): V3[] {
  const ring = (cx: number, cy: number, r: number, z: number) =>
    Array.from({ length: 24 }, (_, i) => {
      const a = (i / 24) * 2 * Math.PI;
      return [cx + r * Math.cos(a), cy + r * Math.sin(a), z] as V3;
    });
  if (p.kind === 'sphere')
    return [
      ...ring(p.at[0], p.at[1], p.r, p.at[2]),
      [p.at[0], p.at[1], p.at[2] + p.r],
      [p.at[0], p.at[1], p.at[2] - p.r],
    ];
  if (p.kind === 'cylinder') return [...ring(p.at[0], p.at[1], p.r, 0), ...ring(p.at[0], p.at[1], p.r, p.h)];
  const t = (p.turnDeg * Math.PI) / 180;
  const out: V3[] = [];
  for (const sx of [-1, 1])
    for (const sy of [-1, 1])
      for (const z of [0, p.size[2]]) {
        const x = (sx * p.size[0]) / 2;
        const y = (sy * p.size[1]) / 2;
        out.push([p.at[0] + x * Math.cos(t) - y * Math.sin(t), p.at[1] + x * Math.sin(t) + y * Math.cos(t), z]);
      }
  return out;
}

import type { DeviceGeometry } from '../devices.ts';
import type { Drawing } from './canvas.ts';
import { showcaseColor } from './case.ts';
import {
  Camera,
  type Prism,
  type Pt,
  type View,
  circlePoints,
  hexToRgb,
  mix,
  pathOf,
  prismCorners,
  prismWalls,
  rgbHex,
  roundedRectPoints,
  scale,
} from './scene.ts';

export type AccessoryView = 'front' | 'angle' | 'side';

const VIEWS: Record<AccessoryView, View> = {
  front: { yawDeg: 0, pitchDeg: 0 },
  angle: { yawDeg: -32, pitchDeg: -22, rollDeg: 3 },
  side: { yawDeg: -68, pitchDeg: -12 },
};

/** A flat cap at height z: SVG drawn in the prism's own millimetres. */
const cap = (cam: Camera, z: number, svg: string) =>
  cam.facing([0, 0, 1]) > 0 ? `<g transform="${cam.planeMatrix(z)}">${svg}</g>` : '';

/**
 * Tempered glass for a phone's front, shown on the phone it fits: in the angled views the sheet
 * floats a little above the screen, as it does the moment before it is laid on.
 */
export function protectorDrawing(d: DeviceGeometry, view: AccessoryView): Drawing {
  const cam = new Camera(VIEWS[view]);
  const { widthMm: W, heightMm: H, depthMm: D, cornerRadiusMm: R } = d.body;
  const frame = hexToRgb(showcaseColor(d));
  const phone: Prism = {
    outline: roundedRectPoints(0, 0, W, H, R, 18),
    z0: -D,
    z1: 0,
    finish: { base: frame, gloss: 0.8 },
    roundness: 0.6,
  };
  const inset = 0.9;
  const lift = view === 'front' ? 0.05 : 9;
  const glassOutline = roundedRectPoints(inset, inset, W - 2 * inset, H - 2 * inset, R - inset, 18);
  const glass: Prism = {
    outline: glassOutline,
    z0: lift,
    z1: lift + 0.5,
    finish: { base: [214, 236, 244], gloss: 1, opacity: 0.85 },
    roundness: 0.9,
    bands: 2,
  };
  const bezel = 1.6;
  const screen = pathOf(roundedRectPoints(bezel, bezel, W - 2 * bezel, H - 2 * bezel, R - bezel, 18));
  const defs = `<linearGradient id="scr" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1e2633"/><stop offset="0.5" stop-color="#0b0e14"/><stop offset="1" stop-color="#151b27"/></linearGradient><linearGradient id="glare" x1="0" y1="0" x2="1" y2="0.55"><stop offset="0.18" stop-color="#fff" stop-opacity="0"/><stop offset="0.3" stop-color="#fff" stop-opacity="0.34"/><stop offset="0.42" stop-color="#fff" stop-opacity="0.06"/><stop offset="0.6" stop-color="#fff" stop-opacity="0"/><stop offset="0.7" stop-color="#fff" stop-opacity="0.16"/><stop offset="0.76" stop-color="#fff" stop-opacity="0"/></linearGradient>`;
  const body = [
    prismWalls(cam, phone),
    cap(
      cam,
      0,
      `<path d="${pathOf(phone.outline)}" fill="#0a0c10"/><path d="${screen}" fill="url(#scr)"/><circle cx="${W / 2}" cy="${bezel + 4.2}" r="1.6" fill="#000" stroke="#2a3140" stroke-width="0.3"/>`,
    ),
    prismWalls(cam, glass),
    cap(
      cam,
      lift + 0.5,
      `<path d="${pathOf(glassOutline)}" fill="#eaf6fb" fill-opacity="0.1"/><path d="${pathOf(glassOutline)}" fill="url(#glare)"/><path d="${pathOf(glassOutline)}" fill="none" stroke="#fff" stroke-opacity="0.85" stroke-width="0.35"/><circle cx="${W / 2 - inset}" cy="${bezel + 4.2 - inset}" r="0" fill="none"/>`,
    ),
  ];
  return { defs, body: body.join(''), outline: [...prismCorners(cam, phone), ...prismCorners(cam, glass)] };
}

/** A compact USB-C wall charger with European pins. */
export function wallChargerDrawing(colorHex: string, view: AccessoryView): Drawing {
  const cam = new Camera(view === 'front' ? { yawDeg: -18, pitchDeg: -14 } : VIEWS[view]);
  const color = hexToRgb(colorHex);
  const S = 34;
  const D = 27;
  const shell: Prism = {
    // Large in the picture: fine facets, or the rounded corners show steps.
    outline: roundedRectPoints(0, 0, S, S, 7, 40),
    z0: -D,
    z1: 0,
    finish: { base: color, gloss: 0.35 },
    roundness: 0.3,
    bands: 24,
  };
  // The pins stand out of the back: seen from the front they hide behind the body.
  const pins = [S / 2 - 9.5, S / 2 + 9.5].map(
    (x): Prism => ({
      outline: circlePoints(x, S / 2, 2, 24),
      z0: -D - 19,
      z1: -D,
      finish: { base: [205, 208, 214], gloss: 0.95 },
      roundness: 0.2,
      bands: 2,
    }),
  );
  const port = pathOf(roundedRectPoints(S / 2 - 4.5, S * 0.62, 9, 3.3, 1.6, 6));
  const tongue = pathOf(roundedRectPoints(S / 2 - 3, S * 0.62 + 1.25, 6, 0.8, 0.3, 3));
  const ring = rgbHex(scale(color, 0.8));
  const body = [
    ...pins.map((p) => prismWalls(cam, p)),
    prismWalls(cam, shell),
    cap(
      cam,
      0,
      `<path d="${pathOf(shell.outline)}" fill="${rgbHex(scale(color, 0.93))}"/><path d="${pathOf(roundedRectPoints(2.2, 2.2, S - 4.4, S - 4.4, 5, 12))}" fill="none" stroke="${ring}" stroke-width="0.25" opacity="0.7"/><path d="${port}" fill="#121316" stroke="${rgbHex(scale(color, 0.7))}" stroke-width="0.35"/><path d="${tongue}" fill="#5a5e66"/><circle cx="${S / 2}" cy="${S * 0.36}" r="0.7" fill="${rgbHex(mix(color, [40, 200, 120], 0.6))}"/>`,
    ),
  ];
  return {
    defs: '',
    body: body.join(''),
    outline: [...prismCorners(cam, shell), ...pins.flatMap((p) => prismCorners(cam, p))],
  };
}

/** A magnetic wireless charging puck on its braided cable. */
export function wirelessChargerDrawing(colorHex: string, view: AccessoryView): Drawing {
  const cam = new Camera(view === 'front' ? { yawDeg: 0, pitchDeg: -35 } : VIEWS[view]);
  const color = hexToRgb(colorHex);
  const r = 28;
  const puck: Prism = {
    outline: circlePoints(0, 0, r, 96),
    z0: -6,
    z1: 0,
    finish: { base: [200, 203, 209], gloss: 0.9 },
    roundness: 0.5,
  };
  // The cable leaves the rim and curls away on the table (the plane of the puck's underside).
  const cable: Pt[] = [
    [0, r],
    [0, r + 22],
    [26, r + 30],
    [38, r + 52],
  ];
  const cablePath = `M${cable[0].join(',')} C${cable[1].join(',')} ${cable[2].join(',')} ${cable[3].join(',')}`;
  const plug: Prism = {
    outline: roundedRectPoints(38 - 4.2, r + 52, 8.4, 16, 2, 6),
    z0: -6,
    z1: -2.2,
    finish: { base: color, gloss: 0.4 },
  };
  const body = [
    `<g transform="${cam.planeMatrix(-4.1)}"><path d="${cablePath}" fill="none" stroke="#1d2330" stroke-opacity="0.14" stroke-width="4.6" stroke-linecap="round" transform="translate(1.2,1.8)"/><path d="${cablePath}" fill="none" stroke="${rgbHex(scale(color, 0.72))}" stroke-width="4" stroke-linecap="round"/><path d="${cablePath}" fill="none" stroke="${rgbHex(scale(color, 0.93))}" stroke-width="3.1" stroke-linecap="round"/><path d="${cablePath}" fill="none" stroke="#fff" stroke-opacity="0.8" stroke-width="0.7" stroke-linecap="round" transform="translate(-0.5,-0.4)"/></g>`,
    prismWalls(cam, plug),
    cap(cam, -2.2, `<path d="${pathOf(plug.outline)}" fill="${rgbHex(color)}"/>`),
    prismWalls(cam, puck),
    cap(
      cam,
      0,
      `<defs><radialGradient id="puck" cx="0.4" cy="0.35" r="0.75"><stop offset="0" stop-color="${rgbHex(mix(color, [255, 255, 255], 0.3))}"/><stop offset="1" stop-color="${rgbHex(scale(color, 0.86))}"/></radialGradient></defs><circle r="${r - 1.2}" fill="url(#puck)"/><circle r="${r - 1.2}" fill="none" stroke="#fff" stroke-opacity="0.8" stroke-width="0.4"/><circle r="${r * 0.55}" fill="none" stroke="${rgbHex(scale(color, 0.82))}" stroke-width="0.35"/><circle r="${r * 0.12}" fill="${rgbHex(scale(color, 0.9))}"/>`,
    ),
  ];
  return {
    defs: '',
    body: body.join(''),
    outline: [
      ...prismCorners(cam, puck),
      ...prismCorners(cam, plug),
      ...cable.map(([x, y]) => cam.project([x, y, -4.1])),
    ],
    shadow: prismCorners(cam, puck),
  };
}

/**
 * A phone strap laid on the table: a braided cord through a clear tab (which sits between phone and
 * case), closed by a metal clasp; `beads` makes it a short beaded wrist strap.
 */
export function strapDrawing(colorHex: string, beads: boolean, view: AccessoryView): Drawing {
  const cam = new Camera(
    view === 'front'
      ? { yawDeg: 0, pitchDeg: 0 }
      : view === 'angle'
        ? { yawDeg: -15, pitchDeg: -45, rollDeg: 8 }
        : { yawDeg: 10, pitchDeg: -60, rollDeg: -20 },
  );
  const color = hexToRgb(colorHex);
  const dark = rgbHex(scale(color, 0.62));
  const light = rgbHex(mix(color, [255, 255, 255], 0.45));
  // The loop: wide for a crossbody strap, small for a wrist strap.
  const w = beads ? 42 : 70;
  const h = beads ? 70 : 150;
  const loop = `M0,0 C${-w},${h * 0.25} ${-w * 0.8},${h} 0,${h} C${w * 0.8},${h} ${w},${h * 0.25} 0,0 Z`;
  // A long strap lies coiled: a second, smaller turn inside the first.
  const [cx, cy, rx, ry] = [w * 0.14, h * 0.58, w * 0.5, h * 0.36];
  const inner = `M${cx - rx},${cy} a${rx},${ry} 0 1,0 ${2 * rx},0 a${rx},${ry} 0 1,0 ${-2 * rx},0 Z`;
  const rope = (d: string, k = 1) =>
    `<path d="${d}" fill="none" stroke="#000" stroke-opacity="0.16" stroke-width="${7.6 / k}" transform="translate(0.9,1.4)"/><path d="${d}" fill="none" stroke="${dark}" stroke-width="${7 / k}"/><path d="${d}" fill="none" stroke="${rgbHex(color)}" stroke-width="${5.8 / k}"/><path d="${d}" fill="none" stroke="${dark}" stroke-width="${5.8 / k}" stroke-dasharray="${1.1 / k} ${1.9 / k}" opacity="0.3"/><path d="${d}" fill="none" stroke="${light}" stroke-width="${1.4 / k}" opacity="0.55" transform="translate(-0.9,-0.9)"/>`;
  // The sliding adjuster: a short metal sleeve on the cord.
  const slider = `<g transform="translate(${-w * 0.56},${h * 0.55}) rotate(62)"><rect x="-6" y="-5" width="12" height="10" rx="2.5" fill="#000" opacity="0.18" transform="translate(0.8,1.2)"/><rect x="-6" y="-5" width="12" height="10" rx="2.5" fill="#b8bcc4"/><rect x="-6" y="-5" width="12" height="4" rx="2" fill="#e6e8ec"/></g>`;
  const cord = beads ? beadLoop(w, h, color) : `${rope(inner)}${rope(loop)}${slider}`;
  const tab = pathOf(roundedRectPoints(-9, -30, 18, 26, 3, 8));
  const svg = `${cord}<path d="${tab}" fill="#e9f3f8" fill-opacity="0.55" stroke="#ffffff" stroke-width="0.5"/><path d="${tab}" fill="none" stroke="#9fb3c0" stroke-width="0.25" transform="translate(0.4,0.4)"/><circle cx="0" cy="-8" r="2.4" fill="#ffffff" fill-opacity="0.5" stroke="#b9c7cf" stroke-width="0.4"/><rect x="-3.6" y="-6" width="7.2" height="10" rx="3" fill="none" stroke="#c9ccd2" stroke-width="1.6"/><rect x="-3.6" y="-6" width="7.2" height="10" rx="3" fill="none" stroke="#ffffff" stroke-width="0.5" stroke-opacity="0.8" transform="translate(-0.4,-0.4)"/>`;
  const corners: Pt[] = [
    [-w * 0.85, -30],
    [w * 0.85, -30],
    [-w * 0.85, h + 3],
    [w * 0.85, h + 3],
  ];
  return {
    defs: '',
    body: `<g transform="${cam.planeMatrix(0)}">${svg}</g>`,
    outline: corners.map(([x, y]) => cam.project([x, y, 0])),
    flat: true,
  };
}

/** Round beads along the loop, each shaded as a little sphere. */
function beadLoop(w: number, h: number, color: [number, number, number]): string {
  const beads: string[] = [
    `<defs><radialGradient id="bead" cx="0.35" cy="0.3" r="0.7"><stop offset="0" stop-color="${rgbHex(mix(color, [255, 255, 255], 0.6))}"/><stop offset="0.6" stop-color="${rgbHex(color)}"/><stop offset="1" stop-color="${rgbHex(scale(color, 0.55))}"/></radialGradient></defs>`,
  ];
  // The elastic the beads are strung on shows between them.
  beads.push(
    `<path d="M0,0 C${-w},${h * 0.25} ${-w * 0.8},${h} 0,${h} C${w * 0.8},${h} ${w},${h * 0.25} 0,0 Z" fill="none" stroke="${rgbHex(scale(color, 0.5))}" stroke-width="0.9"/>`,
  );
  const n = 40;
  // Points along the two cubic halves of the loop.
  const bez = (t: number, p: number[]) =>
    (1 - t) ** 3 * p[0] + 3 * (1 - t) ** 2 * t * p[1] + 3 * (1 - t) * t ** 2 * p[2] + t ** 3 * p[3];
  for (let i = 0; i < n; i++) {
    const u = (i / n) * 2;
    const t = u % 1;
    const xs = u < 1 ? [0, -w, -w * 0.8, 0] : [0, w * 0.8, w, 0];
    const ys = u < 1 ? [0, h * 0.25, h, h] : [h, h, h * 0.25, 0];
    const x = bez(t, xs);
    const y = bez(t, ys);
    beads.push(
      `<circle cx="${(x + 0.5).toFixed(2)}" cy="${(y + 0.8).toFixed(2)}" r="3" fill="#000" opacity="0.15"/><circle cx="${x.toFixed(2)}" cy="${y.toFixed(2)}" r="2.9" fill="url(#bead)"/>`,
    );
  }
  return beads.join('');
}

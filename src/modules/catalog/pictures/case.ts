import type { CaseType } from '../casetypes.ts';
import type { DeviceGeometry } from '../devices.ts';
import { caseOutline } from '../geometry.ts';
import { type Drawing, renderDrawing } from './canvas.ts';
import { type Texture, textureTile } from './textures.ts';
import {
  Camera,
  type Finish,
  type Prism,
  type Pt,
  type Rgb,
  type View,
  circlePoints,
  hexToRgb,
  luminance,
  mix,
  pathOf,
  prismCorners,
  prismWalls,
  rgbHex,
  roundedRectPoints,
  scale,
  shade,
} from './scene.ts';

export type CaseView = 'back' | 'angle' | 'side';

const WHITE: Rgb = [255, 255, 255];
/** The camera island stands this far out of the phone's back (mm); the lens rings a little further. */
const ISLAND_RISE_MM = 1.6;
const LENS_RISE_MM = 0.7;
/** The case's lip past the screen (mm). */
const LIP_MM = 0.9;

/** The phone colour a see-through case shows off best: the most saturated of the device's colours. */
export function showcaseColor(d: DeviceGeometry): string {
  const sat = (hex: string) => {
    const c = hexToRgb(hex);
    return Math.max(...c) - Math.min(...c);
  };
  return d.colors.reduce((best, c) => (sat(c.hex) > sat(best.hex) ? c : best), d.colors[0]).hex;
}

/** How the case's shell looks on its walls and back. */
function shellFinish(ct: CaseType, phone: Rgb): Finish & { cap: Rgb } {
  const m = ct.material;
  const base = hexToRgb(m.baseHex);
  if (m.finish === 'clear') return { base: mix(phone, WHITE, 0.45), gloss: 0.9, cap: mix(phone, WHITE, 0.55) };
  if (m.finish === 'gloss') {
    const c = mix(base, phone, m.transparency * 0.8);
    return { base: c, gloss: 0.75, cap: c };
  }
  if (m.finish === 'leather') return { base: scale(base, 0.92), gloss: 0.25, cap: base };
  return { base, gloss: 0.08, cap: base };
}

interface Parts {
  view: View;
  device: DeviceGeometry;
  caseType: CaseType;
  phoneHex: string;
  /** Data URIs of the texture tiles the material uses. */
  textures: Partial<Record<Texture, string>>;
}

/** One case picture, WebP. */
export async function casePicture(
  device: DeviceGeometry,
  ct: CaseType,
  view: CaseView,
  phoneHex = showcaseColor(device),
): Promise<Buffer> {
  return renderDrawing(await caseDrawing(device, ct, view, phoneHex));
}

/** The drawing of one case picture, in projected millimetres. */
export async function caseDrawing(
  device: DeviceGeometry,
  ct: CaseType,
  view: CaseView,
  phoneHex = showcaseColor(device),
): Promise<Drawing> {
  const textures: Parts['textures'] = {};
  if (ct.material.finish === 'leather') textures.leather = await textureTile('leather');
  if (ct.material.finish === 'matte') textures.matte = await textureTile('matte');
  const o = caseOutline(device, ct);
  const wall = ct.wallMm;
  // A book cover adds its flap in front of the screen.
  const flap = ct.material.book ? 2.2 : 0;
  const depth = device.body.depthMm + wall + LIP_MM + flap;
  const cutoutsLeft = device.cutouts.filter((c) => c.side === 'left').length;
  const cutoutsRight = device.cutouts.filter((c) => c.side === 'right').length;
  // Turn toward the side with more buttons (the screen's left is the right edge seen from behind).
  const sign = cutoutsLeft >= cutoutsRight ? -1 : 1;
  const views: Record<CaseView, View> = {
    back: { yawDeg: 0, pitchDeg: 0 },
    angle: { yawDeg: sign * 34, pitchDeg: -14, rollDeg: sign * -4 },
    side: { yawDeg: sign * 74, pitchDeg: -6, rollDeg: sign * -2 },
  };
  return drawCase({ view: views[view], device, caseType: ct, phoneHex, textures }, o, depth, flap);
}

function drawCase(p: Parts, o: ReturnType<typeof caseOutline>, depth: number, flap: number): Drawing {
  const { device: d, caseType: ct } = p;
  const cam = new Camera(p.view);
  const phone = hexToRgb(p.phoneHex);
  const m = ct.material;
  const shell = shellFinish(ct, phone);
  const W = o.widthMm;
  const H = o.heightMm;
  const wall = ct.wallMm;
  const outline = roundedRectPoints(0, 0, W, H, o.cornerRadiusMm, 18);
  // The side walls in the colourway's bezel colour where it names one (a tough case's bumper).
  const walls = m.bezelHex && m.finish !== 'clear' ? { ...shell, base: hexToRgb(m.bezelHex) } : shell;
  const shellPrism: Prism = {
    outline,
    z0: -depth,
    z1: 0,
    finish: walls,
    roundness: m.book ? 0.35 : 0.8,
    bands: 7,
  };
  const defs: string[] = [];
  const body: string[] = [];

  // Button covers: small raised pads on the shell's side walls.
  const zMid = -(wall + d.body.depthMm / 2);
  const pads: Array<{ prism: Prism; side: Pt }> = [];
  for (const c of d.cutouts) {
    if (c.kind === 'port') continue;
    const x = c.side === 'left' ? W : c.side === 'right' ? 0 : null;
    const pad = 0.7;
    if (x !== null) {
      const y0 = wall + c.offsetMm;
      const pts = roundedRectPoints(x === 0 ? -pad : W - 0.3, y0, pad + 0.3, c.lengthMm, 0.35, 4);
      pads.push({
        prism: { outline: pts, z0: zMid - 1.3, z1: zMid + 1.3, finish: { ...walls, base: scale(walls.base, 0.96) } },
        side: [x === 0 ? -1 : 1, 0],
      });
    }
  }
  // Pads on the far side are drawn first and hidden by the shell where the shell covers them.
  for (const pd of pads) if (cam.facing([pd.side[0], pd.side[1], 0]) <= 0) body.push(prismWalls(cam, pd.prism));
  body.push(prismWalls(cam, shellPrism));
  for (const pd of pads) if (cam.facing([pd.side[0], pd.side[1], 0]) > 0) body.push(prismWalls(cam, pd.prism));

  // A book cover's flap: the seam between the flap and the shell runs along the walls.
  if (flap > 0) body.push(seamLine(cam, outline, -depth + flap, shell.base));
  body.push(portHoles(cam, p, W, H, zMid));

  if (cam.facing([0, 0, 1]) > 0) body.push(backCap(cam, p, o, shell, defs));

  const outlinePts = [...prismCorners(cam, shellPrism), ...pads.flatMap((pd) => prismCorners(cam, pd.prism))];
  return { defs: defs.join(''), body: body.join('\n'), outline: outlinePts };
}

/** The seam of a book cover on the side walls facing the viewer. */
function seamLine(cam: Camera, outline: Pt[], z: number, base: Rgb): string {
  const pts = outline.map(([x, y]) => cam.project([x, y, z]));
  return `<path d="${pathOf(pts)}" fill="none" stroke="${rgbHex(mix(base, WHITE, 0.3))}" stroke-width="0.3" opacity="0.9"/>`;
}

/** The port and speaker openings in the bottom wall, when that wall faces the viewer. */
function portHoles(cam: Camera, p: Parts, W: number, H: number, zMid: number): string {
  if (cam.facing([0, 1, 0]) <= 0.02) return '';
  const wall = p.caseType.wallMm;
  return p.device.cutouts
    .filter((c) => c.side === 'bottom')
    .map((c) => {
      // Offsets run from the screen's left edge: mirrored seen from behind.
      const x1 = W - wall - c.offsetMm;
      const x0 = x1 - c.lengthMm;
      const pts: Pt[] = [
        cam.project([x0, H, zMid + 1.6]),
        cam.project([x1, H, zMid + 1.6]),
        cam.project([x1, H, zMid - 1.6]),
        cam.project([x0, H, zMid - 1.6]),
      ];
      return `<path d="${pathOf(pts)}" fill="#17181b" stroke="#17181b" stroke-width="0.6" stroke-linejoin="round"/>`;
    })
    .join('');
}

/** The back of the case: material, camera cut-out with the phone's camera island in it. */
function backCap(
  cam: Camera,
  p: Parts,
  o: ReturnType<typeof caseOutline>,
  shell: Finish & { cap: Rgb },
  defs: string[],
): string {
  const { device: d, caseType: ct } = p;
  const m = ct.material;
  const phone = hexToRgb(p.phoneHex);
  const W = o.widthMm;
  const H = o.heightMm;
  const wall = ct.wallMm;
  const facing = cam.facing([0, 0, 1]);
  const capLit = scale(shell.cap, 0.78 + 0.28 * facing);
  const outer = pathOf(roundedRectPoints(0, 0, W, H, o.cornerRadiusMm, 18));
  const h = o.hole;
  const holePts =
    h.shape === 'circle'
      ? circlePoints(h.xMm + h.widthMm / 2, h.yMm + h.heightMm / 2, h.widthMm / 2, 64)
      : roundedRectPoints(h.xMm, h.yMm, h.widthMm, h.heightMm, h.radiusMm, 12);
  const hole = pathOf(holePts);
  const parts: string[] = [];

  defs.push(
    `<clipPath id="capClip"><path d="${outer}"/></clipPath>`,
    `<linearGradient id="sheen" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff" stop-opacity="${(0.12 + 0.3 * shell.gloss).toFixed(2)}"/><stop offset="0.38" stop-color="#fff" stop-opacity="0.04"/><stop offset="0.62" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.16"/></linearGradient>`,
  );
  // The cap, with the camera hole cut out.
  parts.push(`<path d="${outer} ${hole}" fill-rule="evenodd" fill="${rgbHex(capLit)}" clip-path="url(#capClip)"/>`);

  if (m.finish === 'clear' || m.finish === 'gloss') {
    // The phone itself seen through the shell: its own back, inside the case's clear rim.
    const ph = pathOf(roundedRectPoints(wall, wall, d.body.widthMm, d.body.heightMm, d.body.cornerRadiusMm, 18));
    const through = mix(
      phone,
      m.finish === 'clear' ? WHITE : hexToRgb(m.baseHex),
      m.finish === 'clear' ? 0.06 : 1 - m.transparency,
    );
    parts.push(
      `<path d="${ph} ${hole}" fill-rule="evenodd" fill="${rgbHex(scale(through, 0.8 + 0.22 * facing))}" clip-path="url(#capClip)"/>`,
    );
    // The phone's edge under the clear rim: a soft dark line, then the rim's bright inner edge.
    parts.push(`<path d="${ph}" fill="none" stroke="#000" stroke-opacity="0.18" stroke-width="0.6"/>`);
    parts.push(`<path d="${ph}" fill="none" stroke="#fff" stroke-opacity="0.55" stroke-width="0.3"/>`);
    // A window reflection across the glossy back.
    defs.push(
      `<linearGradient id="streak" x1="0" y1="0" x2="1" y2="0.6"><stop offset="0.52" stop-color="#fff" stop-opacity="0"/><stop offset="0.58" stop-color="#fff" stop-opacity="0.22"/><stop offset="0.66" stop-color="#fff" stop-opacity="0.05"/><stop offset="0.7" stop-color="#fff" stop-opacity="0"/></linearGradient>`,
    );
    parts.push(`<path d="${outer}" fill="url(#streak)"/>`);
  }
  for (const [t, uri] of Object.entries(p.textures)) {
    // A tile covers 20 mm of leather (pebbles of about a millimetre) or 8 mm of matte tooth.
    const mm = t === 'leather' ? 20 : 8;
    defs.push(
      `<pattern id="tx-${t}" patternUnits="userSpaceOnUse" width="${mm}" height="${mm}"><image href="${uri}" width="${mm}" height="${mm}"/></pattern>`,
    );
    const strength = t === 'leather' ? 0.6 : 0.18;
    parts.push(`<path d="${outer} ${hole}" fill-rule="evenodd" fill="url(#tx-${t})" opacity="${strength}"/>`);
  }
  if (m.finish === 'leather' || m.book) {
    // Stitching a little inside the edge.
    const inset = 2.1;
    const st = pathOf(roundedRectPoints(inset, inset, W - 2 * inset, H - 2 * inset, o.cornerRadiusMm - inset, 18));
    const thread =
      m.finish === 'leather' ? mix(hexToRgb(m.baseHex), [240, 220, 190], 0.6) : mix(hexToRgb(m.baseHex), WHITE, 0.35);
    parts.push(
      `<path d="${st}" fill="none" stroke="#000" stroke-opacity="0.25" stroke-width="0.45" transform="translate(0.12,0.14)" stroke-dasharray="1.3 0.9"/>`,
    );
    parts.push(
      `<path d="${st}" fill="none" stroke="${rgbHex(thread)}" stroke-width="0.4" stroke-dasharray="1.3 0.9" stroke-linecap="round"/>`,
    );
  }
  if (m.book) parts.push(clasp(H, shell.cap));
  if (m.magsafeRing) parts.push(magsafeRing(W, H, o));
  parts.push(`<path d="${outer}" fill="url(#sheen)"/>`);
  // A thin light bevel along the edge of the back.
  parts.push(
    `<path d="${outer}" fill="none" stroke="#fff" stroke-opacity="${(0.2 + 0.35 * shell.gloss).toFixed(2)}" stroke-width="0.5"/>`,
  );

  // Inside the hole: the rim's shadow on the phone's back, then the island standing out of it.
  parts.push(`<path d="${hole}" fill="${rgbHex(scale(phone, 0.55))}"/>`);
  if (m.cameraRingHex) {
    // A camera rim in a colour of its own: the cut-out's wall, a band 0.9 mm inside its outline.
    defs.push(`<clipPath id="ringClip"><path d="${hole}"/></clipPath>`);
    const ring = scale(hexToRgb(m.cameraRingHex), 0.85 + 0.2 * facing);
    parts.push(
      `<path d="${hole}" fill="none" stroke="${rgbHex(ring)}" stroke-width="1.8" clip-path="url(#ringClip)"/>`,
    );
  }
  const capSvg = `<g transform="${cam.planeMatrix(0)}">${parts.join('')}</g>`;
  return capSvg + island(cam, p);
}

/** The wallet's magnetic strap, folded over the edge onto the back. */
function clasp(H: number, cap: Rgb): string {
  const y = H * 0.5 - 11;
  const tab = pathOf(roundedRectPoints(-1, y, 15, 22, 3, 8));
  return `<path d="${tab}" fill="#000" opacity="0.22" transform="translate(0.6,0.8)"/><path d="${tab}" fill="${rgbHex(scale(cap, 0.86))}"/><path d="${pathOf(roundedRectPoints(0.8, y + 1.8, 11.6, 18.4, 2, 8))}" fill="none" stroke="${rgbHex(mix(cap, WHITE, 0.35))}" stroke-width="0.35" stroke-dasharray="1.2 0.8"/>`;
}

/** MagSafe magnet ring with its alignment notch, centred on the phone's back. */
function magsafeRing(W: number, H: number, o: ReturnType<typeof caseOutline>): string {
  const r = Math.min(27, W * 0.36);
  const cx = W / 2;
  // Centred on the body, below a tall camera island.
  const cy = Math.max(H * 0.5, o.hole.yMm + o.hole.heightMm + r + 3);
  return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="none" stroke="#000" stroke-opacity="0.12" stroke-width="3.6" transform="translate(0.2,0.3)"/><circle cx="${cx}" cy="${cy}" r="${r}" fill="none" stroke="#fbfbfb" stroke-width="3.2"/><circle cx="${cx}" cy="${cy}" r="${r - 1.6}" fill="none" stroke="#d6d8dc" stroke-width="0.3"/><rect x="${cx - 3}" y="${cy + r + 3.2}" width="6" height="9" rx="1" fill="#fbfbfb"/>`;
}

/** The phone's camera island and lenses, standing out of the hole. */
function island(cam: Camera, p: Parts): string {
  const { device: d, caseType: ct } = p;
  const c = d.camera;
  const wall = ct.wallMm;
  const phone = hexToRgb(p.phoneHex);
  const x0 = wall + c.xMm;
  const y0 = wall + c.yMm;
  const top = ISLAND_RISE_MM - wall;
  const outline =
    c.shape === 'circle'
      ? circlePoints(x0 + c.widthMm / 2, y0 + c.heightMm / 2, c.widthMm / 2, 64)
      : roundedRectPoints(x0, y0, c.widthMm, c.heightMm, c.cornerRadiusMm, 12);
  // Frosted glass in the phone's colour, a touch deeper than the back.
  const glass = mix(phone, luminance(phone) > 0.5 ? [120, 120, 130] : WHITE, 0.12);
  const prism: Prism = { outline, z0: -wall, z1: top, finish: { base: glass, gloss: 0.7 }, roundness: 0.5, bands: 3 };
  const out: string[] = [prismWalls(cam, prism)];
  const capParts: string[] = [];
  const facing = cam.facing([0, 0, 1]);
  capParts.push(
    `<path d="${pathOf(outline)}" fill="${rgbHex(shade({ base: glass, gloss: 0.2 }, [0, 0, 1]).map((v) => v * (0.9 + 0.1 * facing)) as Rgb)}"/>`,
  );
  capParts.push(`<path d="${pathOf(outline)}" fill="none" stroke="#fff" stroke-opacity="0.4" stroke-width="0.3"/>`);
  const lensTop = top + LENS_RISE_MM;
  const ring = luminance(phone) > 0.5 ? mix(phone, [90, 92, 98], 0.45) : mix(phone, [200, 202, 208], 0.5);
  const rings: string[] = [];
  for (const [i, l] of c.lenses.entries()) {
    const cx = x0 + l.xMm;
    const cy = y0 + l.yMm;
    const r = l.diameterMm / 2;
    // Each lens ring stands up from the island.
    rings.push(
      prismWalls(cam, {
        outline: circlePoints(cx, cy, r, 40),
        z0: top,
        z1: lensTop,
        finish: { base: ring, gloss: 0.9 },
        bands: 2,
        roundness: 0.3,
      }),
    );
    const id = `lens${i}`;
    const lens = `<radialGradient id="${id}g" cx="0.42" cy="0.4" r="0.6"><stop offset="0" stop-color="#3b4256"/><stop offset="0.55" stop-color="#0d0f16"/><stop offset="1" stop-color="#040507"/></radialGradient>`;
    rings.push(
      `<g transform="${cam.planeMatrix(lensTop)}"><defs>${lens}</defs><circle cx="${cx}" cy="${cy}" r="${r}" fill="${rgbHex(ring)}"/><circle cx="${cx}" cy="${cy}" r="${r * 0.8}" fill="#111319"/><circle cx="${cx}" cy="${cy}" r="${r * 0.68}" fill="url(#${id}g)"/><circle cx="${cx}" cy="${cy}" r="${r * 0.34}" fill="#1c2a4a" opacity="0.7"/><ellipse cx="${cx - r * 0.22}" cy="${cy - r * 0.26}" rx="${r * 0.16}" ry="${r * 0.1}" fill="#fff" opacity="0.75" transform="rotate(-35 ${cx - r * 0.22} ${cy - r * 0.26})"/><path d="M${cx + r * 0.5},${cy - r * 0.1} A${r * 0.52},${r * 0.52} 0 0 1 ${cx - r * 0.1},${cy + r * 0.5}" fill="none" stroke="#7f6bd6" stroke-opacity="0.45" stroke-width="${r * 0.06}"/></g>`,
    );
  }
  const flash = flashSpot(d);
  if (flash)
    capParts.push(
      `<circle cx="${x0 + flash[0]}" cy="${y0 + flash[1]}" r="${flash[2]}" fill="#e8e2cf" stroke="${rgbHex(scale(glass, 0.7))}" stroke-width="0.3"/><circle cx="${x0 + flash[0]}" cy="${y0 + flash[1]}" r="${flash[2] * 0.55}" fill="#f8f3df"/>`,
    );
  out.push(`<g transform="${cam.planeMatrix(top)}">${capParts.join('')}</g>`);
  out.push(rings.join(''));
  return out.join('');
}

/** Where a flash fits on the island: the free spot farthest from the lenses (island coordinates). */
function flashSpot(d: DeviceGeometry): [number, number, number] | null {
  const c = d.camera;
  const r = Math.min(2.2, Math.min(c.widthMm, c.heightMm) * 0.09);
  let best: [number, number, number] | null = null;
  let bestGap = 0;
  for (let i = 1; i < 12; i++)
    for (let j = 1; j < 12; j++) {
      const x = (c.widthMm * i) / 12;
      const y = (c.heightMm * j) / 12;
      if (c.shape === 'circle' && Math.hypot(x - c.widthMm / 2, y - c.heightMm / 2) > c.widthMm / 2 - r * 1.8) continue;
      if (x < r * 1.8 || y < r * 1.8 || x > c.widthMm - r * 1.8 || y > c.heightMm - r * 1.8) continue;
      const gap = Math.min(...c.lenses.map((l) => Math.hypot(x - l.xMm, y - l.yMm) - l.diameterMm / 2));
      if (gap > bestGap) {
        bestGap = gap;
        best = [x, y, r];
      }
    }
  return best && bestGap > r * 1.6 ? best : null;
}

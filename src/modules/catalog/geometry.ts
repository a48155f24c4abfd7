import sharp from 'sharp';
import type { PrintFit } from './artwork-fit.ts';
import type { CaseType } from './casetypes.ts';
import type { DeviceGeometry } from './devices.ts';
import type { PrintSpec } from './repo.ts';

/** Clearance around the camera island in the case's cut-out, mm. */
export const CAMERA_CLEARANCE_MM = 0.8;
/** Layer images are drawn at this resolution: enough to place artwork, small enough to seed fast. */
export const LAYER_PX_PER_MM = 4;

const round1 = (x: number) => Math.round(x * 10) / 10;
const mmToPx = (mm: number, dpi: number) => Math.round((mm / 25.4) * dpi);

/** The case's outer outline in plan: the phone's back grown by the case wall, mm. */
function shellSize(device: DeviceGeometry, caseType: CaseType) {
  return {
    widthMm: round1(device.body.widthMm + 2 * caseType.wallMm),
    heightMm: round1(device.body.heightMm + 2 * caseType.wallMm),
  };
}

/**
 * The print area: the case's back as the printer reaches it, seen from above. An opaque case is
 * printed to its outline (the rounded edge included); a clear shell on its flat back only, the
 * outline less the rounded rim on every side (see `printOutline`).
 */
export function printSpecFor(device: DeviceGeometry, caseType: CaseType): PrintSpec {
  const shell = shellSize(device, caseType);
  const rim = clearRimMm(device, caseType);
  const widthMm = round1(shell.widthMm - 2 * rim);
  const heightMm = round1(shell.heightMm - 2 * rim);
  return {
    widthMm,
    heightMm,
    widthPx: mmToPx(widthMm, caseType.dpi),
    heightPx: mmToPx(heightMm, caseType.dpi),
    dpi: caseType.dpi,
  };
}

/** The case's lip past the screen and the part of the side wall left unprinted at the floor, mm. */
const LIP_MM = 0.9;
export const FOOT_MM = 0.5;
/** From this transparency on, a shell's rim is clear plastic, not printed. */
export const CLEAR_RIM = 0.5;

/**
 * The artwork the print file carries beyond the print area of a case printed to its outline, so a
 * case a little off in its jig pocket shows no white edge: the floor's bleed, the artwork's own
 * continuation. No case shows it when it sits true; a clear shell has none (its rim stays clear).
 */
export const PRINT_BLEED_MM = 2;

/**
 * The case's height over its back (the phone, the shell and its lip; a book cover's flap), the
 * radius of the rounded edge from the back to the side wall, and the bleed the fit rule covers. A
 * flatbed prints the case from above: the flat back and the rounded edge (to the outline, as seen
 * from above); the side wall stays the shell's own. A clear shell is printed on its flat back only.
 */
export function caseProfile(device: DeviceGeometry, caseType: CaseType) {
  const o = caseOutline(device, caseType);
  const depthMm = device.body.depthMm + caseType.wallMm + LIP_MM + (caseType.material.book ? 2.2 : 0);
  const edgeMm = Math.min(3.2, depthMm * 0.35, o.cornerRadiusMm - 0.5);
  const clear = caseType.material.transparency >= CLEAR_RIM;
  return { outline: o, depthMm, edgeMm, clear, bleedMm: clear ? 0 : PRINT_BLEED_MM };
}

/** How far in from the outline a clear shell's print stops: its rounded rim (0 for other cases), mm. */
function clearRimMm(device: DeviceGeometry, caseType: CaseType): number {
  const p = caseProfile(device, caseType);
  return p.clear ? p.edgeMm : 0;
}

/** The fit rule's area for a product (see artwork-fit.ts): its print area and bleed. */
export function printFit(device: DeviceGeometry, caseType: CaseType): PrintFit {
  const spec = printSpecFor(device, caseType);
  return {
    widthMm: spec.widthMm,
    heightMm: spec.heightMm,
    bleedMm: caseProfile(device, caseType).bleedMm,
    cornerRadiusMm: printOutline(device, caseType).cornerRadiusMm,
  };
}

export interface CaseOutline {
  widthMm: number;
  heightMm: number;
  cornerRadiusMm: number;
  /** The camera cut-out in print-area coordinates (the back seen from behind). */
  hole: {
    shape: 'rounded-rect' | 'circle';
    xMm: number;
    yMm: number;
    widthMm: number;
    heightMm: number;
    radiusMm: number;
  };
}

/**
 * The case back and its camera cut-out, in mm from the top-left of the case's outline (which is
 * the print area's for every case but a clear shell; its print area is centred in it).
 */
export function caseOutline(device: DeviceGeometry, caseType: CaseType): CaseOutline {
  const spec = shellSize(device, caseType);
  const c = device.camera;
  const k = CAMERA_CLEARANCE_MM;
  const w = c.widthMm + 2 * k;
  const h = c.heightMm + 2 * k;
  return {
    widthMm: spec.widthMm,
    heightMm: spec.heightMm,
    cornerRadiusMm: Math.min(device.body.cornerRadiusMm + caseType.wallMm, spec.widthMm / 2),
    hole: {
      shape: c.shape,
      xMm: caseType.wallMm + c.xMm - k,
      yMm: caseType.wallMm + c.yMm - k,
      widthMm: w,
      heightMm: h,
      radiusMm: c.shape === 'circle' ? w / 2 : Math.min(c.cornerRadiusMm + k, w / 2, h / 2),
    },
  };
}

/**
 * What is printed, in mm from the print area's top-left: the outline for a case printed to it; for
 * a clear shell its flat back, the outline pulled in by the rim (corners too) with the camera
 * cut-out in the same place on the case. Print files, batch files and the product's layers use it.
 */
export function printOutline(device: DeviceGeometry, caseType: CaseType): CaseOutline {
  const o = caseOutline(device, caseType);
  const spec = printSpecFor(device, caseType);
  const dx = (o.widthMm - spec.widthMm) / 2;
  const dy = (o.heightMm - spec.heightMm) / 2;
  if (!dx && !dy) return o;
  return {
    widthMm: spec.widthMm,
    heightMm: spec.heightMm,
    cornerRadiusMm: Math.max(0, o.cornerRadiusMm - Math.max(dx, dy)),
    hole: { ...o.hole, xMm: o.hole.xMm - dx, yMm: o.hole.yMm - dy },
  };
}

const n = (x: number) => Number(x.toFixed(2));
/** A rounded rectangle as an SVG path (clockwise), in the caller's units. */
function roundedRect(x: number, y: number, w: number, h: number, r: number): string {
  r = Math.max(0, Math.min(r, w / 2, h / 2));
  return [
    `M${n(x + r)},${n(y)}`,
    `H${n(x + w - r)}`,
    `A${n(r)},${n(r)} 0 0 1 ${n(x + w)},${n(y + r)}`,
    `V${n(y + h - r)}`,
    `A${n(r)},${n(r)} 0 0 1 ${n(x + w - r)},${n(y + h)}`,
    `H${n(x + r)}`,
    `A${n(r)},${n(r)} 0 0 1 ${n(x)},${n(y + h - r)}`,
    `V${n(y + r)}`,
    `A${n(r)},${n(r)} 0 0 1 ${n(x + r)},${n(y)}`,
    'Z',
  ].join(' ');
}

/** The outline and the hole as two SVG paths at `scale` units per mm; `inset` pulls the outline in (units). */
export function outlinePaths(o: CaseOutline, scale: number, inset = 0): { body: string; hole: string } {
  const s = (v: number) => v * scale;
  const h = o.hole;
  return {
    body: roundedRect(inset, inset, s(o.widthMm) - 2 * inset, s(o.heightMm) - 2 * inset, s(o.cornerRadiusMm) - inset),
    hole: roundedRect(s(h.xMm), s(h.yMm), s(h.widthMm), s(h.heightMm), s(h.radiusMm)),
  };
}

/**
 * The two layer images of a case: `print-area` (the printable back, camera hole cut out, on
 * transparency) and `cutline` (the line the shell and the camera hole are cut along).
 */
export async function layerImages(device: DeviceGeometry, caseType: CaseType): Promise<Record<string, Buffer>> {
  const o = printOutline(device, caseType);
  const width = Math.round(o.widthMm * LAYER_PX_PER_MM);
  const height = Math.round(o.heightMm * LAYER_PX_PER_MM);
  const { body, hole } = outlinePaths(o, LAYER_PX_PER_MM);
  // The cut line is drawn inside the canvas: a 2 px stroke centred on the edge would lose half.
  const inner = outlinePaths(o, LAYER_PX_PER_MM, 1).body;
  const svg = (inner: string) =>
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${inner}</svg>`,
    );
  // The hole is clipped by the body: a camera bar running to the edge opens the shell there.
  const area = svg(
    `<defs><clipPath id="b"><path d="${body}"/></clipPath></defs><path clip-path="url(#b)" fill-rule="evenodd" fill="#ffffff" stroke="none" d="${body} ${hole}"/>`,
  );
  const line = svg(
    `<defs><clipPath id="b"><path d="${body}"/></clipPath></defs><g fill="none" stroke="#ff00ff" stroke-width="2"><path d="${inner}"/><path clip-path="url(#b)" d="${hole}"/></g>`,
  );
  const png = (b: Buffer) => sharp(b).png({ compressionLevel: 6 }).toBuffer();
  const [printArea, cutline] = await Promise.all([png(area), png(line)]);
  return { 'print-area': printArea, cutline };
}

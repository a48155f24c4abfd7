import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Static } from 'typebox';
import { badRequest } from '../../platform/errors.ts';
import { checkAgainst } from '../../platform/http/validation.ts';
import { DeviceList } from './schemas.ts';

/**
 * One phone model's outer geometry, in millimetres. The back is described as seen from behind
 * (camera island and lenses from its top-left corner); buttons and ports by the side they are on
 * with the screen facing you, `offsetMm` from the top edge (left/right) or from the left edge
 * (top/bottom). Lens `xMm`/`yMm` are the lens centre, relative to the island's top-left.
 */
export interface DeviceGeometry {
  key: string;
  brand: string;
  model: string;
  /** YYYY-MM-DD */
  releaseDate: string;
  flagship: boolean;
  /** Dimensions from leaks or dummies: the product keeps no print specification while announced. */
  preliminary?: boolean;
  body: { widthMm: number; heightMm: number; depthMm: number; cornerRadiusMm: number };
  camera: {
    shape: 'rounded-rect' | 'circle';
    xMm: number;
    yMm: number;
    widthMm: number;
    heightMm: number;
    cornerRadiusMm: number;
    /** relative to the island's top-left */
    lenses: { xMm: number; yMm: number; diameterMm: number }[];
  };
  cutouts: {
    side: 'left' | 'right' | 'top' | 'bottom';
    kind: 'button' | 'port' | 'switch';
    offsetMm: number;
    lengthMm: number;
  }[];
  colors: { name: string; hex: string }[];
}

// The schema and the interface must describe the same thing.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameShape: Same<Static<typeof DeviceList>[number], DeviceGeometry> = true;
void _sameShape;

/** The committed device table; an operator's own table is applied with `podctl catalog import`. */
export const DEVICES_FILE = join(import.meta.dirname, 'devices.json');

const EPS = 1e-6;

/**
 * What the schema cannot say: the island lies on the back, the lenses in the island, the buttons on
 * their side, corners fit. `where` names the row, e.g. `body.devices[3]`.
 */
export function checkDeviceGeometry(d: DeviceGeometry, where: string): void {
  const { body, camera: c } = d;
  const fail = (field: string, problem: string) => badRequest(`${where}.${field} ${problem} (device ${d.key})`);
  if (body.cornerRadiusMm > Math.min(body.widthMm, body.heightMm) / 2 + EPS)
    throw fail('body.cornerRadiusMm', 'is larger than half the body width');
  if (c.xMm + c.widthMm > body.widthMm + EPS)
    throw fail(
      'camera.xMm',
      `puts the camera island outside the body: ${c.xMm} + ${c.widthMm} mm > ${body.widthMm} mm width`,
    );
  if (c.yMm + c.heightMm > body.heightMm + EPS)
    throw fail(
      'camera.yMm',
      `puts the camera island outside the body: ${c.yMm} + ${c.heightMm} mm > ${body.heightMm} mm height`,
    );
  if (c.shape === 'circle' && Math.abs(c.widthMm - c.heightMm) > EPS)
    throw fail('camera.heightMm', 'must equal widthMm for a circular island');
  if (c.cornerRadiusMm > Math.min(c.widthMm, c.heightMm) / 2 + EPS)
    throw fail('camera.cornerRadiusMm', 'is larger than half the island');
  for (const [i, l] of c.lenses.entries()) {
    const r = l.diameterMm / 2;
    const outsideBox =
      l.xMm - r < -EPS || l.yMm - r < -EPS || l.xMm + r > c.widthMm + EPS || l.yMm + r > c.heightMm + EPS;
    const R = c.widthMm / 2;
    const outsideCircle = c.shape === 'circle' && Math.hypot(l.xMm - R, l.yMm - R) + r > R + EPS;
    if (outsideBox || outsideCircle) throw fail(`camera.lenses[${i}]`, 'lies outside the camera island');
  }
  for (const [i, k] of d.cutouts.entries()) {
    const edge = k.side === 'left' || k.side === 'right' ? body.heightMm : body.widthMm;
    if (k.offsetMm + k.lengthMm > edge + EPS)
      throw fail(`cutouts[${i}].offsetMm`, `runs past the end of the ${k.side} side (${edge} mm)`);
  }
}

/** Checks a whole table: the schema, the geometry, and keys given once. */
export function checkDevices(list: unknown, part: string): DeviceGeometry[] {
  const devices = checkAgainst<DeviceGeometry[]>(DeviceList, list, part);
  const seen = new Set<string>();
  for (const [i, d] of devices.entries()) {
    if (seen.has(d.key)) throw badRequest(`${part}[${i}].key ${d.key} appears twice in the file`);
    seen.add(d.key);
    checkDeviceGeometry(d, `${part}[${i}]`);
  }
  return devices;
}

let cached: DeviceGeometry[] | undefined;

/** The committed device table, checked (a broken file fails loudly at first use). */
export function loadDevices(): DeviceGeometry[] {
  cached ??= checkDevices(JSON.parse(readFileSync(DEVICES_FILE, 'utf8')), 'devices.json');
  return cached;
}

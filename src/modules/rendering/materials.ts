import type { CaseType } from '../catalog/casetypes.ts';
import type { DeviceGeometry } from '../catalog/devices.ts';
import type { Material } from './warp.ts';

/**
 * How each finish reacts to the template's light: a matte shell scatters (little highlight),
 * gloss and clear shells reflect (full highlight), leather has grain and a soft sheen. The shading and
 * highlight layers of a template are the same for every finish; these numbers make the difference.
 */
const FINISH: Record<
  CaseType['material']['finish'],
  Omit<Material, 'baseHex' | 'phoneHex' | 'transparency' | 'magsafeRing'>
> = {
  // Printed on a white underbase, so the ink keeps its colours on the clear shell.
  clear: { shading: 0.85, highlight: 0.95, grain: 0, ink: 1 },
  gloss: { shading: 0.95, highlight: 0.9, grain: 0, ink: 1 },
  matte: { shading: 1, highlight: 0.16, grain: 0, ink: 1 },
  leather: { shading: 1, highlight: 0.22, grain: 0.3, ink: 0.9 },
};

/** The colour a clear case shows best: the phone's most saturated finish. */
export function phoneColour(device: DeviceGeometry): string {
  const sat = (hex: string) => {
    const n = Number.parseInt(hex.slice(1), 16);
    const c = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    return Math.max(...c) - Math.min(...c);
  };
  return [...device.colors].sort((a, b) => sat(b.hex) - sat(a.hex))[0]?.hex ?? '#9aa0a6';
}

export function materialFor(caseType: CaseType, phoneHex: string): Material {
  const m = caseType.material;
  return {
    ...FINISH[m.finish],
    baseHex: m.baseHex,
    phoneHex,
    transparency: m.transparency,
    magsafeRing: m.magsafeRing,
  };
}

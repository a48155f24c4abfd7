import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES, type CaseType } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { printFit, printSpecFor } from '../../src/modules/catalog/geometry.ts';
import { artworkWithBleed } from '../../src/modules/production/print-file.ts';
import { frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { type DrawnTemplate, composeRender } from '../../src/modules/rendering/renderer.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { stageTemplate } from '../../src/modules/rendering/stage/template.ts';

// The fit rule is one: the same artwork lands at the same place on the print file and on every
// mockup. Two markers (position and scale) are found in both and compared in mm of the print area.

const device = loadDevices().find((d) => d.key === 'iphone-15')!;
const ART = { width: 1500, height: 2600 };
/** Marker centres in artwork pixels: red right of the camera, blue near the bottom left. */
const MARKERS = { red: [1120, 760], blue: [400, 2010] } as const;
const SQUARE = 40;

async function markerArtwork(): Promise<Buffer> {
  const square = (hex: string) => sharp({ create: { width: SQUARE, height: SQUARE, channels: 3, background: hex } });
  return sharp({ create: { ...ART, channels: 3, background: '#ffffff' } })
    .composite([
      { input: await square('#ff0000').png().toBuffer(), left: MARKERS.red[0] - 20, top: MARKERS.red[1] - 20 },
      { input: await square('#0000ff').png().toBuffer(), left: MARKERS.blue[0] - 20, top: MARKERS.blue[1] - 20 },
    ])
    .png()
    .toBuffer();
}

const isRed = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60;
const isBlue = (r: number, g: number, b: number) => b > 200 && r < 60 && g < 60;

/** The mean of `at(x, y)` over the pixels that pass `test`. */
function centroid(
  data: Buffer,
  width: number,
  channels: number,
  test: (r: number, g: number, b: number) => boolean,
  at: (x: number, y: number) => [number, number] | null,
): [number, number] {
  let n = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0, p = 0; i < data.length; i += channels, p++) {
    if (!test(data[i], data[i + 1], data[i + 2])) continue;
    const mm = at(p % width, Math.floor(p / width));
    if (!mm) continue;
    n++;
    sx += mm[0];
    sy += mm[1];
  }
  assert.ok(n > 0, 'the marker is visible');
  return [sx / n, sy / n];
}

/** Marker centres (mm from the print area's top-left) on the print file's image. */
async function onPrintFile(art: Buffer, caseType: CaseType) {
  const spec = { ...printSpecFor(device, caseType), artworkBleedMm: printFit(device, caseType).bleedMm };
  const { jpeg, bleedPx } = await artworkWithBleed(art, spec, 2);
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const kx = spec.widthPx / spec.widthMm;
  const ky = spec.heightPx / spec.heightMm;
  const at = (x: number, y: number): [number, number] => [(x + 0.5 - bleedPx) / kx, (y + 0.5 - bleedPx) / ky];
  return {
    red: centroid(data, info.width, info.channels, isRed, at),
    blue: centroid(data, info.width, info.channels, isBlue, at),
  };
}

/** Marker centres (mm) on a mockup: every marker pixel's own UV, read back to the print area. */
async function onMockup(art: Buffer, caseType: CaseType, t: DrawnTemplate, size: number) {
  const fit = printFit(device, caseType);
  const out = await composeRender({ ...t, fit, output: { widthPx: size, heightPx: size, format: 'png' } }, art);
  const { data, info } = await sharp(out.media).raw().toBuffer({ resolveWithObject: true });
  const uv = await sharp(t.uv).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
  const u16 = new Uint16Array(uv.buffer, uv.byteOffset, uv.byteLength / 2);
  const layers = await sharp(t.layers).raw().toBuffer();
  const [ew, eh] = t.backMm;
  const at = (x: number, y: number): [number, number] | null => {
    const p = y * info.width + x;
    // Only fully covered pixels: an antialiased edge mixes the marker with its surroundings.
    if (layers[p * 3] < 255) return null;
    return [
      (u16[p * 3] / 65535) * ew - (ew - fit.widthMm) / 2,
      (u16[p * 3 + 1] / 65535) * eh - (eh - fit.heightMm) / 2,
    ];
  };
  return {
    red: centroid(data, info.width, info.channels, isRed, at),
    blue: centroid(data, info.width, info.channels, isBlue, at),
  };
}

function assertSamePlace(print: Record<string, [number, number]>, mock: Record<string, [number, number]>, tol: number) {
  for (const k of ['red', 'blue']) {
    const d = Math.hypot(print[k][0] - mock[k][0], print[k][1] - mock[k][1]);
    assert.ok(
      d <= tol,
      `${k}: print ${print[k].map((v) => v.toFixed(2))} mm, mockup ${mock[k].map((v) => v.toFixed(2))} mm`,
    );
  }
}

describe('the fit rule: print file and mockups', () => {
  it('places the artwork where the print file prints it, on a 3D stage', async () => {
    const art = await markerArtwork();
    const ct = CASE_TYPES.tough;
    const size = 1000;
    const plate = await sharp({ create: { width: size, height: size, channels: 3, background: '#c8c8c8' } })
      .png()
      .toBuffer();
    const st = STAGES[0];
    const t = await stageTemplate(plate, st, st.views[0], device, ct, materialFor(ct, phoneColour(device)), {
      width: size,
      height: size,
    });
    assert.equal(printFit(device, ct).bleedMm, 2, 'the tough case carries the floor bleed beyond its outline');
    const print = await onPrintFile(art, ct);
    // The markers sit where the artwork, covering the print area and its bleed, puts them.
    const fit = printFit(device, ct);
    const scale = Math.max((fit.widthMm + 2 * fit.bleedMm) / ART.width, (fit.heightMm + 2 * fit.bleedMm) / ART.height);
    const expected = (m: readonly [number, number]): [number, number] => [
      fit.widthMm / 2 + (m[0] - ART.width / 2) * scale,
      fit.heightMm / 2 + (m[1] - ART.height / 2) * scale,
    ];
    assertSamePlace(print, { red: expected(MARKERS.red), blue: expected(MARKERS.blue) }, 0.1);
    // A stage pixel on the back is about 0.35 mm here: the same place within a pixel.
    assertSamePlace(print, await onMockup(art, ct, t, size), 0.4);
  });

  it('places the artwork where the print file prints it, on the straight-on shot of a clear and a tough case', async () => {
    const art = await markerArtwork();
    for (const ct of [CASE_TYPES.clear, CASE_TYPES.tough]) {
      const t = await frontalTemplate(device, ct, { width: 1000, height: 1000 });
      assertSamePlace(await onPrintFile(art, ct), await onMockup(art, ct, t, 1000), 0.3);
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import {
  type CaseOutline,
  LAYER_PX_PER_MM,
  caseOutline,
  layerImages,
  printOutline,
  printSpecFor,
} from '../../src/modules/catalog/geometry.ts';
import { casePicture } from '../../src/modules/catalog/pictures/case.ts';
import { buildPrintFile } from '../../src/modules/production/print-file.ts';
import { frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { renderPlate, stageTemplate } from '../../src/modules/rendering/stage/template.ts';
import type { DrawnTemplate } from '../../src/modules/rendering/renderer.ts';
import { popplerMissing, rawPixels, renderPage } from '../support/pdf-tools.ts';

const device = (key: string) => loadDevices().find((d) => d.key === key)!;

/** Signed distance (mm) from a print point to the camera cut-out's outline: negative inside. */
function holeDistance(o: CaseOutline, x: number, y: number) {
  const h = o.hole;
  const cx = h.xMm + h.widthMm / 2;
  const cy = h.yMm + h.heightMm / 2;
  if (h.shape === 'circle') return Math.hypot(x - cx, y - cy) - h.widthMm / 2;
  const qx = Math.abs(x - cx) - (h.widthMm / 2 - h.radiusMm);
  const qy = Math.abs(y - cy) - (h.heightMm / 2 - h.radiusMm);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - h.radiusMm;
}

/**
 * Where a template prints, in print mm: every fully masked pixel's UV mapped back onto the back
 * (less the bleed the template's back carries beyond the outline).
 */
async function printedPoints(t: DrawnTemplate, o: CaseOutline) {
  const layers = await sharp(t.layers).raw().toBuffer({ resolveWithObject: true });
  const uv = await sharp(t.uv).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
  const u16 = new Uint16Array(uv.buffer, uv.byteOffset, uv.byteLength / 2);
  const ch = layers.info.channels;
  const uch = u16.length / (layers.info.width * layers.info.height);
  const bleedX = (t.backMm[0] - o.widthMm) / 2;
  const bleedY = (t.backMm[1] - o.heightMm) / 2;
  const points: Array<[number, number]> = [];
  for (let i = 0; i < layers.info.width * layers.info.height; i++)
    if (layers.data[i * ch] === 255)
      points.push([(u16[i * uch] / 65535) * t.backMm[0] - bleedX, (u16[i * uch + 1] / 65535) * t.backMm[1] - bleedY]);
  return points;
}

/** The print surrounds the cut-out: nothing inside it, printed pixels all round it within a margin. */
function assertAroundHole(points: Array<[number, number]>, o: CaseOutline, at: string, tolerance: number) {
  const h = o.hole;
  const cx = h.xMm + h.widthMm / 2;
  const cy = h.yMm + h.heightMm / 2;
  let inside = 0;
  const sides = new Set<string>();
  for (const [x, y] of points) {
    const d = holeDistance(o, x, y);
    if (d < -tolerance) inside++;
    if (d >= 0 && d < 2.5) {
      // Which side of the cut-out a printed pixel hugs (on the back: a side at the shell's edge has none).
      if (Math.abs(x - cx) > Math.abs(y - cy) * (h.widthMm / h.heightMm)) sides.add(x < cx ? 'left' : 'right');
      else sides.add(y < cy ? 'top' : 'bottom');
    }
  }
  assert.equal(inside, 0, `${at}: ${inside} printed pixels inside the camera cut-out`);
  // Below the island and on its inner side the print runs right up to the cut-out.
  assert.ok(sides.has('bottom'), `${at}: printed right below the cut-out (${[...sides]})`);
  if (h.xMm + h.widthMm < o.widthMm - 3)
    assert.ok(sides.has('right'), `${at}: printed right beside the cut-out (${[...sides]})`);
}

describe('the print area around the camera hole, everywhere it is drawn', () => {
  const cases = [
    { key: 'iphone-15', caseType: 'tough' as const },
    { key: 'iphone-16e', caseType: 'leather' as const },
    { key: 'iphone-17-pro', caseType: 'clear' as const },
  ];

  it('cuts the layer image along the camera island plus its clearance, and prints all round it', async () => {
    for (const c of cases) {
      // The layer image is the print area: a clear shell's flat back, inside its clear rim.
      const o = printOutline(device(c.key), CASE_TYPES[c.caseType]);
      const area = await sharp((await layerImages(device(c.key), CASE_TYPES[c.caseType]))['print-area'])
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      let wrong = 0;
      let checked = 0;
      for (let y = 0; y < area.info.height; y++)
        for (let x = 0; x < area.info.width; x++) {
          const mmX = (x + 0.5) / LAYER_PX_PER_MM;
          const mmY = (y + 0.5) / LAYER_PX_PER_MM;
          const d = holeDistance(o, mmX, mmY);
          // Half a millimetre either side of the outline is the antialiased edge.
          if (Math.abs(d) < 0.5 || d > 3) continue;
          // Inside the shell's rounded outline by more than a millimetre.
          const qx = Math.abs(mmX - o.widthMm / 2) - (o.widthMm / 2 - o.cornerRadiusMm);
          const qy = Math.abs(mmY - o.heightMm / 2) - (o.heightMm / 2 - o.cornerRadiusMm);
          const body = Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - o.cornerRadiusMm;
          if (body > -1) continue;
          checked++;
          const alpha = area.data[(y * area.info.width + x) * 4 + 3];
          if ((d < 0 && alpha > 0) || (d > 0 && alpha < 255)) wrong++;
        }
      assert.ok(checked > 500, `${c.key}: ${checked} pixels around the hole`);
      assert.equal(wrong, 0, `${c.key}: ${wrong} of ${checked} pixels disagree with the geometry`);
    }
  });

  it('prints the straight-on shot and the 3D stage around the same cut-out', async () => {
    const st = STAGES[0];
    const size = { width: 700, height: 700 };
    const plate = await sharp(await renderPlate(st, st.views[0], size), { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    for (const c of cases) {
      const d = device(c.key);
      const ct = CASE_TYPES[c.caseType];
      const o = caseOutline(d, ct);
      const front = await frontalTemplate(d, ct, { width: 800, height: 800 });
      assertAroundHole(await printedPoints(front, o), o, `${c.key} straight-on`, 0.4);
      const stage = await stageTemplate(plate, st, st.views[0], d, ct, materialFor(ct, phoneColour(d)), size);
      assertAroundHole(await printedPoints(stage, o), o, `${c.key} stage`, 0.5);
    }
  });

  it('cuts the print file along the same cut-out and shell', { skip: popplerMissing }, async () => {
    const DPI = 200;
    for (const c of cases) {
      const d = device(c.key);
      const ct = CASE_TYPES[c.caseType];
      const o = printOutline(d, ct);
      const white = await sharp({ create: { width: 300, height: 600, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer();
      const { pdf } = await buildPrintFile({
        artwork: white,
        spec: printSpecFor(d, ct),
        outline: o,
        bleedMm: 0,
        title: 'print area',
        at: new Date('2026-12-06T10:00:00Z'),
      });
      const page = await rawPixels(renderPage(pdf, DPI));
      // The cut line's CutContour spot colour shows magenta: where is it, in mm?
      let line = 0;
      let off = 0;
      let alongHole = 0;
      for (let y = 0; y < page.height; y++)
        for (let x = 0; x < page.width; x++) {
          const [r, g, b] = page.at(x, y);
          if (!(g < r - 60 && g < b - 30)) continue;
          line++;
          const mmX = ((x + 0.5) / DPI) * 25.4;
          const mmY = ((y + 0.5) / DPI) * 25.4;
          const qx = Math.abs(mmX - o.widthMm / 2) - (o.widthMm / 2 - o.cornerRadiusMm);
          const qy = Math.abs(mmY - o.heightMm / 2) - (o.heightMm / 2 - o.cornerRadiusMm);
          const body = Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - o.cornerRadiusMm;
          const hole = holeDistance(o, mmX, mmY);
          if (Math.abs(hole) < 0.3) alongHole++;
          else if (Math.abs(body) > 0.4) off++;
        }
      assert.ok(line > 500, `${c.key}: ${line} cut-line pixels`);
      assert.equal(off, 0, `${c.key}: ${off} cut-line pixels off the shell and the camera cut-out`);
      const h = o.hole;
      // Most of the cut-out's perimeter (in pixels at this resolution) carries the cut line.
      const perimeter = ((2 * (h.widthMm + h.heightMm)) / 25.4) * DPI;
      assert.ok(alongHole > perimeter * 0.5, `${c.key}: ${alongHole} cut-line pixels round the camera cut-out`);
    }
  });
});

describe('the camera cut-out on the product pictures', () => {
  it('draws the back picture of a case with the cut-out where the geometry puts it, within half a millimetre', async () => {
    for (const key of ['iphone-15', 'iphone-16e', 'galaxy-s24', 'pixel-9']) {
      const d = device(key);
      const ct = CASE_TYPES.tough;
      const o = caseOutline(d, ct);
      const { data, info } = await sharp(await casePicture(d, ct, 'back', '#f4e7b0'))
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const lum = (x: number, y: number) => {
        const i = (y * info.width + x) * 3;
        return 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
      };
      // The dark shell's extent is the case's outline on the picture: across a row low on the back
      // (clear of the side buttons) and down its middle column.
      const dark = (x: number, y: number) => lum(x, y) < 90;
      const ys = Array.from({ length: info.height }, (_, y) => y).filter((y) => dark(info.width >> 1, y));
      const [y0, y1] = [ys[0], ys.at(-1)!];
      const row = Math.round(y0 + 0.8 * (y1 - y0));
      const xs = Array.from({ length: info.width }, (_, x) => x).filter((x) => dark(x, row));
      const [x0, x1] = [xs[0], xs.at(-1)!];
      const k = (x1 + 1 - x0) / o.widthMm;
      assert.ok(
        Math.abs((y1 + 1 - y0) / k - o.heightMm) < 1,
        `${key}: the picture keeps the outline's size (${[x0, y0, x1, y1]}, ${o.widthMm} x ${o.heightMm})`,
      );
      // What is not shell inside the outline's top part is the cut-out: the phone (shown in a pale
      // colour, so even its shadowed part is lighter than the shell), its island and lenses.
      const h = o.hole;
      let [hx0, hy0, hx1, hy1] = [info.width, info.height, 0, 0];
      const margin = Math.ceil(4 * k);
      for (let y = y0 + margin; y < y0 + (h.yMm + h.heightMm + 6) * k; y++)
        for (let x = x0 + margin; x < x1 - margin; x++)
          if (lum(x, y) >= 90)
            [hx0, hy0, hx1, hy1] = [Math.min(hx0, x), Math.min(hy0, y), Math.max(hx1, x), Math.max(hy1, y)];
      const mm = (px: number, from: number) => (px - from) / k;
      const got = [mm(hx0, x0), mm(hy0, y0), mm(hx1 + 1, x0), mm(hy1 + 1, y0)];
      const want = [h.xMm, h.yMm, h.xMm + h.widthMm, h.yMm + h.heightMm];
      for (const [i, side] of ['left', 'top', 'right', 'bottom'].entries())
        assert.ok(
          Math.abs(got[i] - want[i]) < 0.5,
          `${key}: the cut-out's ${side} edge at ${got[i].toFixed(2)} mm, the geometry's at ${want[i].toFixed(2)} mm`,
        );
    }
  });
});

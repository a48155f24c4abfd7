import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES, type CaseTypeKey } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { caseOutline, printOutline, printSpecFor } from '../../src/modules/catalog/geometry.ts';
import { buildPrintFile } from '../../src/modules/production/print-file.ts';
import { frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { photoTemplate } from '../../src/modules/rendering/photo/template.ts';
import type { DrawnTemplate } from '../../src/modules/rendering/renderer.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { stageTemplate } from '../../src/modules/rendering/stage/template.ts';

// What a mockup shows printed is what the print file prints: a clear shell on its flat back only
// (its rim stays clear; on a straight-on shot, a stage and a partner's photo scene), every other
// case to its outline and not down its side wall, which a
// flatbed does not reach. Both are measured in mm from the print area's top-left.

const device = loadDevices().find((d) => d.key === 'iphone-15')!;
const PT = 72 / 25.4;

interface Extent {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The print file's printed part on the case: its TrimBox, less the page's bleed, in mm. */
async function printFileExtent(ct: CaseTypeKey): Promise<Extent> {
  const bleedMm = 2;
  const art = await sharp({ create: { width: 600, height: 1200, channels: 3, background: '#3070c0' } })
    .png()
    .toBuffer();
  const { pdf } = await buildPrintFile({
    artwork: art,
    spec: printSpecFor(device, CASE_TYPES[ct]),
    outline: printOutline(device, CASE_TYPES[ct]),
    bleedMm,
    title: 'extent',
    at: new Date('2026-12-06T10:00:00Z'),
  });
  const m = /\/TrimBox \[([\d.\s]+)\]/.exec(pdf.toString('latin1'));
  assert.ok(m, 'the page has a TrimBox');
  const [x0, y0, x1, y1] = m[1].trim().split(/\s+/).map(Number);
  const b = bleedMm;
  return { left: x0 / PT - b, top: y0 / PT - b, right: x1 / PT - b, bottom: y1 / PT - b };
}

/** Where a template prints: the UV of every fully masked pixel, in mm from the print area's top-left. */
async function mockupExtent(t: DrawnTemplate, ct: CaseTypeKey): Promise<Extent> {
  const o = caseOutline(device, CASE_TYPES[ct]);
  const spec = printSpecFor(device, CASE_TYPES[ct]);
  const layers = await sharp(t.layers).raw().toBuffer({ resolveWithObject: true });
  const uv = await sharp(t.uv).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
  const u16 = new Uint16Array(uv.buffer, uv.byteOffset, uv.byteLength / 2);
  const ch = layers.info.channels;
  const n = layers.info.width * layers.info.height;
  const uch = u16.length / n;
  // The UV map spans backMm centred on the outline, whose centre is the print area's.
  const ox = (t.backMm[0] - o.widthMm) / 2 + (o.widthMm - spec.widthMm) / 2;
  const oy = (t.backMm[1] - o.heightMm) / 2 + (o.heightMm - spec.heightMm) / 2;
  const e = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  for (let i = 0; i < n; i++) {
    if (layers.data[i * ch] < 255) continue;
    const x = (u16[i * uch] / 65535) * t.backMm[0] - ox;
    const y = (u16[i * uch + 1] / 65535) * t.backMm[1] - oy;
    e.left = Math.min(e.left, x);
    e.right = Math.max(e.right, x);
    e.top = Math.min(e.top, y);
    e.bottom = Math.max(e.bottom, y);
  }
  return e;
}

const fmt = (e: Extent) => [e.left, e.top, e.right, e.bottom].map((v) => v.toFixed(2)).join(', ');
const SIDES = ['left', 'top', 'right', 'bottom'] as const;

describe('the printed extent: print file and mockups', () => {
  const size = { width: 1000, height: 1000 };

  it('a clear case: print area, print file, straight-on shot, stage and photo scene all stop at the clear rim', async () => {
    for (const ct of ['clear', 'magsafe'] as const) {
      const spec = printSpecFor(device, CASE_TYPES[ct]);
      const o = caseOutline(device, CASE_TYPES[ct]);
      assert.ok(o.widthMm - spec.widthMm > 4, `${ct}: the print area leaves the rim out`);
      const print = await printFileExtent(ct);
      assert.deepEqual(
        SIDES.map((s) => Math.round(print[s] * 10) / 10 + 0),
        [0, 0, spec.widthMm, spec.heightMm],
        `${ct}: the print file's trim is the print area`,
      );
      const st = STAGES[0];
      const plate = await sharp({ create: { ...size, channels: 3, background: '#c8c8c8' } })
        .png()
        .toBuffer();
      const material = materialFor(CASE_TYPES[ct], phoneColour(device));
      // A partner's photo with the back marked square-on, 6 px a mm.
      const photo = await sharp({ create: { ...size, channels: 3, background: '#b0b0b0' } })
        .jpeg()
        .toBuffer();
      const [w8, h8] = [o.widthMm * 6, o.heightMm * 6];
      const [x0, y0] = [(size.width - w8) / 2, (size.height - h8) / 2];
      const corners: Array<[number, number]> = [
        [x0, y0],
        [x0 + w8, y0],
        [x0 + w8, y0 + h8],
        [x0, y0 + h8],
      ];
      for (const [name, t] of [
        ['straight-on', await frontalTemplate(device, CASE_TYPES[ct], size)],
        ['stage', await stageTemplate(plate, st, st.views[0], device, CASE_TYPES[ct], material, size)],
        ['photo scene', await photoTemplate(photo, size, corners as never, device, CASE_TYPES[ct], material, size)],
      ] as const) {
        const m = await mockupExtent(t, ct);
        for (const s of SIDES)
          assert.ok(Math.abs(m[s] - print[s]) <= 0.5, `${ct} ${name}: printed ${fmt(m)} mm, print file ${fmt(print)}`);
      }
    }
  });

  it('an opaque case: printed to its outline, its side wall left unprinted on the stage', async () => {
    for (const ct of ['tough', 'leather'] as const) {
      const spec = printSpecFor(device, CASE_TYPES[ct]);
      const o = caseOutline(device, CASE_TYPES[ct]);
      assert.equal(spec.widthMm, o.widthMm);
      const print = await printFileExtent(ct);
      const front = await mockupExtent(await frontalTemplate(device, CASE_TYPES[ct], size), ct);
      for (const s of SIDES)
        assert.ok(Math.abs(front[s] - print[s]) <= 0.5, `${ct} straight-on: ${fmt(front)} mm, print ${fmt(print)}`);
      for (const st of STAGES.slice(0, 2))
        for (const view of st.views) {
          const plate = await sharp({ create: { ...size, channels: 3, background: '#c8c8c8' } })
            .png()
            .toBuffer();
          const t = await stageTemplate(
            plate,
            st,
            view,
            device,
            CASE_TYPES[ct],
            materialFor(CASE_TYPES[ct], '#222222'),
            size,
          );
          const m = await mockupExtent(t, ct);
          // Nothing beyond the outline (the wall is the shell's own), and the edges the view sees reach it.
          for (const s of SIDES) {
            const beyond = s === 'left' || s === 'top' ? print[s] - m[s] : m[s] - print[s];
            assert.ok(beyond <= 0.5, `${ct} ${st.key}/${view.key}: printed ${fmt(m)} mm beyond ${fmt(print)}`);
          }
          const reached = SIDES.filter((s) => Math.abs(m[s] - print[s]) <= 0.5);
          assert.ok(reached.length >= 2, `${ct} ${st.key}/${view.key}: printed ${fmt(m)} mm reaches ${reached}`);
        }
    }
  });
});

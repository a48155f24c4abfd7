import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { type CaseType, CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { caseOutline, caseProfile } from '../../src/modules/catalog/geometry.ts';
import { inColourway } from '../../src/modules/catalog/look.ts';
import { frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { type DrawnTemplate, type Template, composeRender } from '../../src/modules/rendering/renderer.ts';
import { caseSolid } from '../../src/modules/rendering/stage/case-mesh.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { renderPlate, stageTemplate } from '../../src/modules/rendering/stage/template.ts';

const lum = (p: Buffer, i: number) => 0.2126 * p[i] + 0.7152 * p[i + 1] + 0.0722 * p[i + 2];

/** A full-coverage artwork of one mid colour, so the only change between two renders is the case's shape. */
const flatArtwork = () =>
  sharp({ create: { width: 300, height: 600, channels: 3, background: '#3a86ff' } })
    .png()
    .toBuffer();

/** Both templates rendered with one artwork (raw RGB), and the first one's UV map as 16-bit values. */
async function renderBoth(withLip: DrawnTemplate, without: DrawnTemplate, output: Template['output'], art: Buffer) {
  const raw = async (t: DrawnTemplate) =>
    sharp((await composeRender({ ...t, output }, art)).media)
      .raw()
      .toBuffer();
  const uv = await sharp(withLip.uv).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
  return {
    a: await raw(withLip),
    b: await raw(without),
    u16: new Uint16Array(uv.buffer, uv.byteOffset, uv.byteLength / 2),
  };
}

describe('a tough case in a 3D stage', () => {
  it('shows its raised bezel under a full-coverage artwork: a lip along the edge, its inner slope in shadow', async () => {
    const ip15 = loadDevices().find((d) => d.key === 'iphone-15')!;
    const tough = CASE_TYPES.tough;
    // The same shell, wall and material without the lip (the lip is drawn for the tough case alone).
    const flat = { ...tough, key: 'wallet' } as CaseType;
    const material = materialFor(tough, phoneColour(ip15));
    const solid = caseSolid(ip15, tough);
    const art = await flatArtwork();
    const size = { width: 800, height: 800 };
    const output = { widthPx: size.width, heightPx: size.height, format: 'png' as const };
    for (const st of [STAGES[0], STAGES[1]]) {
      const view = st.views[st === STAGES[0] ? 0 : 1];
      const at = `${st.key}/${view.key}`;
      const plate = await sharp(await renderPlate(st, view, size), { raw: { ...size, channels: 3 } })
        .png()
        .toBuffer();
      const withLip = await stageTemplate(plate, st, view, ip15, tough, material, size);
      const without = await stageTemplate(plate, st, view, ip15, flat, material, size);
      // Where on the back each changed pixel lies: its print point from the UV map, as an inset
      // from the outline in mm (the UV map spans the outline and its bleed).
      const { a, b, u16 } = await renderBoth(withLip, without, output, art);
      const mask = await sharp(withLip.layers).extractChannel(0).raw().toBuffer();
      const [bw, bh] = withLip.backMm;
      let darker = 0;
      let offBand = 0;
      // The lip's inner half (toward the middle of the back) and its outer half (the crest).
      const slope = { inner: 0, innerN: 0, outer: 0, outerN: 0 };
      let changed = 0;
      let printed = 0;
      for (let i = 0; i < size.width * size.height; i++) {
        if (mask[i] === 255) printed++;
        const d = lum(a, i * 3) - lum(b, i * 3);
        if (Math.abs(d) < 6) continue;
        changed++;
        const x = (u16[i * 3] / 65535) * bw - solid.bleedMm;
        const y = (u16[i * 3 + 1] / 65535) * bh - solid.bleedMm;
        const inset = Math.min(x, y, solid.widthMm - x, solid.heightMm - y);
        // The lip stands on the flat back's rim: 1.4 mm inside the rounded edge (a pixel's slack).
        if (mask[i] < 255 || inset > solid.edgeMm + 1.4 + 0.6) offBand++;
        if (d < 0) darker++;
        if (mask[i] < 255) continue;
        if (inset > solid.edgeMm + 0.8 && inset < solid.edgeMm + 1.3) {
          slope.inner += d;
          slope.innerN++;
        } else if (inset > solid.edgeMm + 0.1 && inset < solid.edgeMm + 0.6) {
          slope.outer += d;
          slope.outerN++;
        }
      }
      assert.ok(changed > 300, `${at}: ${changed} pixels show the lip`);
      assert.ok(changed < printed / 8, `${at}: the lip is a band along the edge (${changed} of ${printed})`);
      assert.ok(offBand <= changed * 0.05, `${at}: ${offBand} of ${changed} changed pixels lie off the lip`);
      assert.ok(darker > changed * 0.9, `${at}: ${darker} of ${changed} pixels of the lip are in its shadow`);
      // The slope rises toward the crest: darkest at its foot, nearly the back's own light at the top.
      const inner = slope.inner / Math.max(1, slope.innerN);
      const outer = slope.outer / Math.max(1, slope.outerN);
      assert.ok(slope.innerN > 50 && slope.outerN > 50, `${at}: ${slope.innerN} and ${slope.outerN} pixels`);
      assert.ok(
        inner < outer - 4,
        `${at}: the foot (${inner.toFixed(1)}) is darker than the crest (${outer.toFixed(1)})`,
      );
    }
  });

  it('shows its raised lip on the straight-on shot too, just inside the rounded edge', async () => {
    const ip15 = loadDevices().find((d) => d.key === 'iphone-15')!;
    const tough = CASE_TYPES.tough;
    const flat = { ...tough, key: 'wallet' } as CaseType;
    const size = { width: 800, height: 800 };
    const output = { widthPx: size.width, heightPx: size.height, format: 'png' as const };
    const art = await flatArtwork();
    const withLip = await frontalTemplate(ip15, tough, size);
    const without = await frontalTemplate(ip15, flat, size);
    const { a, b, u16 } = await renderBoth(withLip, without, output, art);
    const [bw, bh] = withLip.backMm;
    const edge = caseProfile(ip15, tough).edgeMm;
    let changed = 0;
    let darker = 0;
    let offBand = 0;
    for (let i = 0; i < size.width * size.height; i++) {
      const d = lum(a, i * 3) - lum(b, i * 3);
      if (Math.abs(d) < 6) continue;
      changed++;
      if (d < 0) darker++;
      const x = (u16[i * 3] / 65535) * bw;
      const y = (u16[i * 3 + 1] / 65535) * bh;
      const inset = Math.min(x, y, bw - x, bh - y);
      if (inset < edge - 0.5 || inset > edge + 2) offBand++;
    }
    assert.ok(changed > 1500, `${changed} pixels show the lip`);
    assert.ok(darker > changed * 0.9, `${darker} of ${changed} pixels of the lip are in its shadow`);
    assert.ok(offBand <= changed * 0.05, `${offBand} of ${changed} changed pixels lie off the lip`);
  });

  it('in a colourway, shows its colour on the side wall below the lip and on the camera ring, under full-coverage artwork', async () => {
    const ip15 = loadDevices().find((d) => d.key === 'iphone-15')!;
    const red = inColourway(CASE_TYPES.tough, { colour: { name: 'Red', hex: '#c0392b' } });
    const st = STAGES[0];
    const view = st.views[0];
    const size = { width: 800, height: 800 };
    const output = { widthPx: size.width, heightPx: size.height, format: 'png' as const };
    const plate = await sharp(await renderPlate(st, view, size), { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    const art = await flatArtwork();
    const t = await stageTemplate(plate, st, view, ip15, red, materialFor(red, phoneColour(ip15)), size);
    const out = await sharp((await composeRender({ ...t, output }, art)).media)
      .raw()
      .toBuffer();
    const mask = await sharp(t.layers).extractChannel(0).raw().toBuffer();
    const uv = await sharp(t.uv).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
    const u16 = new Uint16Array(uv.buffer, uv.byteOffset, uv.byteLength / 2);
    const solid = caseSolid(ip15, red);
    const h = caseOutline(ip15, red).hole;
    const [bw, bh] = t.backMm;
    // Red pixels: unprinted, the shell's own colour. Near the cut-out (by the print point of the
    // nearest printed pixel on the row) they are its ring; elsewhere the side wall.
    let ring = 0;
    let wall = 0;
    let printedRed = 0;
    for (let y = 0; y < size.height; y++) {
      let near = false;
      for (let x = 0; x < size.width; x++) {
        const i = y * size.width + x;
        if (mask[i] === 255) {
          const px = (u16[i * 3] / 65535) * bw - solid.bleedMm;
          const py = (u16[i * 3 + 1] / 65535) * bh - solid.bleedMm;
          near = px > h.xMm - 1 && px < h.xMm + h.widthMm + 1 && py > h.yMm - 1 && py < h.yMm + h.heightMm + 1;
        }
        const [r, g, b] = [out[i * 3], out[i * 3 + 1], out[i * 3 + 2]];
        if (!(r > g + 60 && r > b + 60)) continue;
        if (mask[i] === 255) printedRed++;
        else if (near) ring++;
        else wall++;
      }
    }
    assert.equal(printedRed, 0, 'the artwork covers the print: no red shows through it');
    assert.ok(wall > 500, `${wall} red pixels of side wall`);
    assert.ok(ring > 40, `${ring} red pixels of the camera ring`);
  });
});

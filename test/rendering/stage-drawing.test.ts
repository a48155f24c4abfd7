import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { caseOutline } from '../../src/modules/catalog/geometry.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { composeRender } from '../../src/modules/rendering/renderer.ts';
import { FRAME_MARGIN, STAGES, StageCamera, framed } from '../../src/modules/rendering/stage/stages.ts';
import { propRects, renderPlate, stageTemplate } from '../../src/modules/rendering/stage/template.ts';
import { bleedBackMm, caseSolid } from '../../src/modules/rendering/stage/case-mesh.ts';
import { FLAT_PATCH, highPassStd } from '../../src/modules/rendering/stage/noise.ts';
import { floorColour } from '../../src/modules/rendering/stage/plate-floor.ts';

const device = (key: string) => loadDevices().find((d) => d.key === key)!;

// How the stages look in the catalog and through the API is in stages.test.ts.
describe('3D stages: the case rendered at run time from its geometry', () => {
  it('keeps every prop inside the frame, in every stage, view and output shape', () => {
    for (const st of STAGES)
      for (const view of st.views)
        for (const size of [
          { width: 1000, height: 1000 },
          { width: 2000, height: 2000 },
          { width: 1600, height: 900 },
          { width: 800, height: 1200 },
        ]) {
          const cam = new StageCamera(framed(st, view, size), size);
          for (const [x0, y0, x1, y1] of propRects(st, cam)) {
            const at = `${st.key}/${view.key} ${size.width}x${size.height}`;
            assert.ok(x0 >= size.width * FRAME_MARGIN * 0.99 && y0 >= size.height * FRAME_MARGIN * 0.99, at);
            assert.ok(
              x1 <= size.width * (1 - FRAME_MARGIN * 0.99) && y1 <= size.height * (1 - FRAME_MARGIN * 0.99),
              at,
            );
          }
        }
  });

  it('renders plates without noise: a flat floor patch varies by at most 1.5 levels after a high-pass at 2000 px, in every stage and view', async () => {
    const size = { width: 2000, height: 2000 };
    for (const st of STAGES)
      for (const view of st.views) {
        const raw = await renderPlate(st, view, size);
        const std = highPassStd(raw, size.width, FLAT_PATCH(size.width));
        assert.ok(std <= 1.5, `${st.key}/${view.key}: ${std.toFixed(2)} levels`);
      }
    // The measure sees noise where there is some.
    const noisy = new Uint8Array(100 * 100 * 3).map((_, i) => 128 + (((i * 2654435761) >>> 24) % 9) - 4);
    assert.ok(highPassStd(noisy, 100, { left: 10, top: 10, size: 40 }) > 1.5);
  });

  it('draws the oak desk soft: its grain spans under 32 levels of luminance (2nd to 98th percentile) over 200 mm, yet shows a figure', () => {
    const col = new Float64Array(3);
    const lum: number[] = [];
    for (let y = -100; y < 100; y += 0.5)
      for (let x = -100; x < 100; x += 0.5) {
        floorColour(1, x, y, col);
        lum.push(0.2126 * col[0] + 0.7152 * col[1] + 0.0722 * col[2]);
      }
    lum.sort((a, b) => a - b);
    const spread = lum[Math.floor(0.98 * (lum.length - 1))] - lum[Math.floor(0.02 * (lum.length - 1))];
    assert.ok(spread < 32, `${spread.toFixed(1)} levels: harsh latewood stripes`);
    assert.ok(spread > 15, `${spread.toFixed(1)} levels: no visible grain`);
  });

  it('prints the back and its rounded edge around the camera cut-out, and shows the phone inside the cut-out', async () => {
    const ip15 = device('iphone-15');
    const ct = CASE_TYPES.tough;
    const st = STAGES[0];
    const size = { width: 600, height: 600 };
    const plate = await sharp(await renderPlate(st, st.views[0], size), { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    const material = materialFor(ct, phoneColour(ip15));
    const t = await stageTemplate(plate, st, st.views[0], ip15, ct, material, size);
    const solid = caseSolid(ip15, ct);
    assert.deepEqual(t.backMm, bleedBackMm(solid));
    assert.equal(solid.bleedMm, 2, "the fit covers the print file's bleed beyond the outline");
    const layers = await sharp(t.layers).raw().toBuffer();
    const uv = await sharp(t.uv).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
    const u16 = new Uint16Array(uv.buffer, uv.byteOffset, uv.byteLength / 2);
    // Where on the back (mm, bleed included) each fully covered pixel prints.
    const [bw, bh] = t.backMm;
    const o = caseOutline(ip15, ct);
    const h = o.hole;
    let inHole = 0;
    let besideHole = 0;
    let onEdge = 0;
    let beyond = 0;
    let pixels = 0;
    for (let i = 0; i < size.width * size.height; i++) {
      if (layers[i * 3] < 255) continue;
      pixels++;
      const x = (u16[i * 3] / 65535) * bw - solid.bleedMm;
      const y = (u16[i * 3 + 1] / 65535) * bh - solid.bleedMm;
      // Signed distance to the cut-out's rounded outline (negative inside).
      const qx = Math.abs(x - (h.xMm + h.widthMm / 2)) - (h.widthMm / 2 - h.radiusMm);
      const qy = Math.abs(y - (h.yMm + h.heightMm / 2)) - (h.heightMm / 2 - h.radiusMm);
      const d = Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - h.radiusMm;
      if (d < -0.5) inHole++;
      // The band right beside the hole (below and to its right) is printed: no unprinted band.
      if (x > h.xMm && x < h.xMm + h.widthMm && y > h.yMm + h.heightMm + 0.5 && y < h.yMm + h.heightMm + 4)
        besideHole++;
      // The rounded edge, outside the flat back up to the outline, is printed; the side wall is not.
      const inset = Math.min(x, y, o.widthMm - x, o.heightMm - y);
      if (inset < solid.edgeMm - 0.3 && inset >= -0.2) onEdge++;
      if (inset < -0.3) beyond++;
    }
    assert.ok(pixels > 5000, `${pixels} pixels of case`);
    assert.equal(inHole, 0, 'nothing is printed inside the camera cut-out');
    assert.ok(besideHole > 50, `${besideHole} printed pixels just below the cut-out`);
    assert.ok(onEdge > 200, `${onEdge} pixels print the curved edge`);
    assert.equal(beyond, 0, "nothing is printed beyond the outline: the side wall is the shell's own");
  });

  it('keeps black artwork black on a clear case and leaves its rim unprinted, showing the phone', async () => {
    const ip15 = device('iphone-15');
    const ct = CASE_TYPES.clear;
    const st = STAGES.find((s) => s.floor === 'marble')!;
    const size = { width: 500, height: 500 };
    const plate = await sharp(await renderPlate(st, st.views[0], size), { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    // The same clear case on a red and on a blue phone: what differs outside the print is the phone.
    const red = await stageTemplate(plate, st, st.views[0], ip15, ct, materialFor(ct, '#d02020'), size);
    const blue = await stageTemplate(plate, st, st.views[0], ip15, ct, materialFor(ct, '#2040d0'), size);
    const solid = caseSolid(ip15, ct);
    assert.equal(solid.bleedMm, 0, 'a clear case prints its flat back only');
    assert.deepEqual(red.backMm, [solid.widthMm, solid.heightMm]);
    const black = await sharp({ create: { width: 60, height: 120, channels: 3, background: '#000000' } })
      .png()
      .toBuffer();
    const output = { widthPx: size.width, heightPx: size.height, format: 'png' as const };
    const rgb = await sharp((await composeRender({ ...red, output }, black)).media)
      .raw()
      .toBuffer();
    const mask = await sharp(red.layers).extractChannel(0).raw().toBuffer();
    const bgRed = await sharp(red.background).raw().toBuffer();
    const bgBlue = await sharp(blue.background).raw().toBuffer();
    // Pixels reachable from the frame's border without crossing the print: the floor and the rim,
    // not the camera cut-out (which the print surrounds).
    const n = size.width * size.height;
    const outside = new Uint8Array(n);
    const stack = [0];
    outside[0] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % size.width;
      for (const j of [i - size.width, i + size.width, x > 0 ? i - 1 : -1, x < size.width - 1 ? i + 1 : -1])
        if (j >= 0 && j < n && !outside[j] && mask[j] < 128) {
          outside[j] = 1;
          stack.push(j);
        }
    }
    let printed = 0;
    let dark = 0;
    let rim = 0;
    for (let i = 0; i < n; i++) {
      const o = i * 3;
      if (mask[i] === 255) {
        printed++;
        if (rgb[o] + rgb[o + 1] + rgb[o + 2] < 3 * 40) dark++;
      }
      // Red on the red phone, blue on the blue one: the phone's side seen through the rim.
      if (outside[i] && mask[i] === 0 && bgRed[o] - bgBlue[o] > 40 && bgBlue[o + 2] - bgRed[o + 2] > 40) rim++;
    }
    assert.ok(printed > 3000, `${printed} printed pixels`);
    assert.ok(dark / printed > 0.97, `black prints dark: ${dark} of ${printed}`);
    assert.ok(rim > 400, `${rim} rim pixels show the phone's colour`);
  });
});

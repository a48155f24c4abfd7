import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES, type CaseType } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { type Colourway, inColourway } from '../../src/modules/catalog/look.ts';
import { caseDrawing } from '../../src/modules/catalog/pictures/case.ts';
import { backdropSvg, pictureSvg } from '../../src/modules/catalog/pictures/canvas.ts';
import { frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { type DrawnTemplate, composeRender } from '../../src/modules/rendering/renderer.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { renderPlate, stageTemplate } from '../../src/modules/rendering/stage/template.ts';

const ip15 = loadDevices().find((d) => d.key === 'iphone-15')!;
const GRAPHITE = { name: 'Graphite', hex: '#2b2d31' };
const ORANGE = '#f26b1d';
const tough = (c: Colourway) => inColourway(CASE_TYPES.tough, { colour: c });
const plain = tough(GRAPHITE);
const bezel = tough({ ...GRAPHITE, bezelHex: ORANGE });
const ring = tough({ ...GRAPHITE, cameraRingHex: ORANGE });

interface Diff {
  n: number;
  /** Changed pixels on the printed back (mask 255), where the print lies. */
  printed: number;
  y0: number;
  y1: number;
  x0: number;
  x1: number;
}

/** Pixels that differ by more than a rounding between two RGB frames, and their bounding box. */
function diff(a: Buffer, b: Buffer, width: number, mask?: Buffer): Diff {
  const d: Diff = { n: 0, printed: 0, y0: Infinity, y1: -1, x0: Infinity, x1: -1 };
  for (let i = 0; i < a.length / 3; i++) {
    let m = 0;
    for (let q = 0; q < 3; q++) m = Math.max(m, Math.abs(a[i * 3 + q] - b[i * 3 + q]));
    if (m < 8) continue;
    d.n++;
    if (mask?.[i] === 255) d.printed++;
    const x = i % width;
    const y = Math.floor(i / width);
    d.x0 = Math.min(d.x0, x);
    d.x1 = Math.max(d.x1, x);
    d.y0 = Math.min(d.y0, y);
    d.y1 = Math.max(d.y1, y);
  }
  return d;
}

/**
 * The camera rim's change is one small patch (the cut-out); the bezel's runs down the whole case.
 * Neither touches the printed back.
 */
function assertParts(at: string, r: Diff, b: Diff, size: number, bezelPixels = 300) {
  assert.ok(r.n > 40, `${at}: ${r.n} pixels of camera rim`);
  assert.ok(r.y1 - r.y0 < size * 0.25 && r.x1 - r.x0 < size * 0.25, `${at}: the rim's change is the cut-out's patch`);
  assert.ok(b.n > bezelPixels, `${at}: ${b.n} pixels of bezel`);
  assert.ok(b.y1 - b.y0 > size * 0.4, `${at}: the bezel's change runs down the case (${b.y0}-${b.y1})`);
  assert.equal(r.printed, 0, `${at}: the camera rim leaves the printed back alone`);
  assert.equal(b.printed, 0, `${at}: the bezel leaves the printed back alone`);
}

/** A full-coverage artwork of one mid colour. */
const flatArtwork = () =>
  sharp({ create: { width: 300, height: 600, channels: 3, background: '#3a86ff' } })
    .png()
    .toBuffer();

async function composed(t: DrawnTemplate, size: number) {
  const output = { widthPx: size, heightPx: size, format: 'png' as const };
  return sharp((await composeRender({ ...t, output }, await flatArtwork())).media)
    .raw()
    .toBuffer();
}

async function sameGeometry(at: string, a: DrawnTemplate, b: DrawnTemplate) {
  assert.ok(a.uv.equals(b.uv), `${at}: the UV map is the same`);
  assert.ok(a.layers.equals(b.layers), `${at}: mask, shading and highlight are the same`);
}

describe('a colourway with part colours', () => {
  it('draws the bezel and the camera rim in their colours in the product pictures, the back as it is', async () => {
    const px = 500;
    const render = async (ct: CaseType, view: 'back' | 'angle') => {
      const d = await caseDrawing(ip15, ct, view);
      const backdrop = `data:image/png;base64,${(
        await sharp(Buffer.from(backdropSvg(d, px, px)))
          .png()
          .toBuffer()
      ).toString('base64')}`;
      return sharp(Buffer.from(pictureSvg(d, backdrop, px)))
        .flatten({ background: '#ffffff' })
        .raw()
        .toBuffer();
    };
    const back = await render(plain, 'back');
    const r = diff(back, await render(ring, 'back'), px);
    // Seen from behind only the button covers and the outline's edge show the side wall: the back's
    // middle (below the camera) stays as it is.
    const behind = await render(bezel, 'back');
    const middle = (f: Buffer) =>
      Buffer.concat(
        Array.from({ length: 260 }, (_, y) => f.subarray(((160 + y) * px + 170) * 3, ((160 + y) * px + 320) * 3)),
      );
    assert.ok(diff(back, behind, px).n > 0, 'the button covers and the edge show the bezel');
    assert.equal(diff(middle(back), middle(behind), 150).n, 0, "the back's middle stays as it is");
    const angle = await render(plain, 'angle');
    const b = diff(angle, await render(bezel, 'angle'), px);
    assertParts('pictures', r, b, px);
    assert.ok(r.y1 < px / 2, 'the rim is at the top, where the camera is');
  });

  it('draws them on the straight-on shot, the print area as it is', async () => {
    const size = 600;
    const s = { width: size, height: size };
    const base = await frontalTemplate(ip15, plain, s);
    const withRing = await frontalTemplate(ip15, ring, s);
    const withBezel = await frontalTemplate(ip15, bezel, s);
    await sameGeometry('front ring', base, withRing);
    await sameGeometry('front bezel', base, withBezel);
    const mask = await sharp(base.layers).extractChannel(0).raw().toBuffer();
    const a = await composed(base, size);
    assertParts(
      'front',
      diff(a, await composed(withRing, size), size, mask),
      diff(a, await composed(withBezel, size), size, mask),
      size,
    );
  });

  it('draws them in a 3D stage: the side wall below the lip and the cut-out wall, the print area as it is', async () => {
    const size = 800;
    const s = { width: size, height: size };
    const st = STAGES[0];
    const view = st.views[0];
    const plate = await sharp(await renderPlate(st, view, s), { raw: { ...s, channels: 3 } })
      .png()
      .toBuffer();
    const material = materialFor(plain, phoneColour(ip15));
    const draw = (ct: CaseType) => stageTemplate(plate, st, view, ip15, ct, material, s);
    const base = await draw(plain);
    const withRing = await draw(ring);
    const withBezel = await draw(bezel);
    await sameGeometry('stage ring', base, withRing);
    await sameGeometry('stage bezel', base, withBezel);
    const mask = await sharp(base.layers).extractChannel(0).raw().toBuffer();
    const a = await composed(base, size);
    const r = diff(a, await composed(withRing, size), size, mask);
    const b = diff(a, await composed(withBezel, size), size, mask);
    assertParts('stage', r, b, size);
    // The two parts are apart: no pixel of the rim's change is the bezel's.
    assert.ok(r.x1 < b.x0 || r.x0 > b.x1 || r.y1 < b.y0 || r.y0 > b.y1 || r.n < b.n, 'rim and bezel differ in place');
  });
});

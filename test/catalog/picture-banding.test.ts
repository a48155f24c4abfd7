import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { caseOutline } from '../../src/modules/catalog/geometry.ts';
import { pictureSvg } from '../../src/modules/catalog/pictures/canvas.ts';
import {
  Camera,
  type Prism,
  hexToRgb,
  mix,
  prismCorners,
  prismWalls,
  roundedRectPoints,
} from '../../src/modules/catalog/pictures/scene.ts';

// A case's rounded wall is shaded smoothly. Drawn at 4000 px, where the wall is wide enough for its
// true gradient to change by a level or two a pixel, flat-shaded bands show as contour steps of
// 8-40 levels between neighbouring pixels; a smooth wall has almost none.

const SIZE = 4000;

/** The clear iPhone 15 shell's wall as the product picture's angled view draws it, and its coverage. */
async function clearWall(perCorner: number) {
  const device = loadDevices().find((d) => d.key === 'iphone-15')!;
  const ct = CASE_TYPES.clear;
  const o = caseOutline(device, ct);
  const prism: Prism = {
    outline: roundedRectPoints(0, 0, o.widthMm, o.heightMm, o.cornerRadiusMm, perCorner),
    z0: -(device.body.depthMm + ct.wallMm + 0.9),
    z1: 0,
    finish: { base: mix(hexToRgb('#f3e9b5'), [255, 255, 255], 0.45), gloss: 0.9 },
    roundness: 0.8,
    bands: 7,
  };
  const cam = new Camera({ yawDeg: -34, pitchDeg: -14, rollDeg: 4 });
  const svg = Buffer.from(
    pictureSvg({ defs: '', body: prismWalls(cam, prism), outline: prismCorners(cam, prism) }, '', SIZE),
  );
  const alpha = await sharp(svg).ensureAlpha().extractChannel(3).raw().toBuffer();
  // Luminance over grey, a 3x3 median taking out the facets' hairline seams.
  const lum = await sharp(svg).flatten({ background: '#808080' }).greyscale().median(3).raw().toBuffer();
  return { alpha, lum };
}

/** Neighbour steps inside the wall, 24 px in from its outline (grazing slivers change steeply): share of 8+ levels. */
function contourSteps({ alpha, lum }: { alpha: Buffer; lum: Buffer }) {
  const R = 24;
  // Distance-to-outside by a separable box test: a row run of R+1 opaque pixels each side, then columns.
  const rows = new Uint8Array(SIZE * SIZE);
  for (let y = 0; y < SIZE; y++) {
    let run = 0;
    for (let x = 0; x < SIZE; x++) {
      run = alpha[y * SIZE + x] >= 128 ? run + 1 : 0;
      if (run > 2 * R) rows[y * SIZE + x - R] = 1;
    }
  }
  let pixels = 0;
  let steps = 0;
  for (let x = R; x < SIZE - R; x++) {
    let run = 0;
    for (let y = 0; y < SIZE - 1; y++) {
      run = rows[y * SIZE + x] ? run + 1 : 0;
      if (run <= 2 * R) continue;
      const i = (y - R) * SIZE + x;
      pixels++;
      if (Math.abs(lum[i] - lum[i + 1]) >= 8) steps++;
      if (Math.abs(lum[i] - lum[i + SIZE]) >= 8) steps++;
    }
  }
  return { pixels, share: steps / (2 * pixels) };
}

describe('product pictures: the case wall without banding', () => {
  it('shades the clear shell wall smoothly across its depth and round its corners', async () => {
    const s = contourSteps(await clearWall(18));
    assert.ok(s.pixels > 100000, `${s.pixels} pixels of wall`);
    // Flat-shaded bands measure 1.6 % here; the smooth wall 0.6 %.
    assert.ok(s.share < 0.009, `${(s.share * 100).toFixed(2)} % of neighbour steps are 8 levels or more`);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GRAIN_BYTES, GRAIN_LEVELS, GRAIN_MEAN, GRAIN_SIZE, drawGrain } from '../../src/modules/rendering/grain.ts';
import { materialParams, warpKernel } from '../../src/modules/rendering/warp.ts';

const S = 160;

/**
 * A flat leather back filling an S x S box, the UV map spanning `mm` mm of leather across it (so a
 * pixel covers mm * 6 / S grain texels), with no artwork; answers the mean step in grey from one
 * pixel to the next (the fine speckle a customer sees at 100 %) and the output's standard deviation.
 */
function leather(tex: Uint8Array, mm: number) {
  const n = S * S;
  const uv = new Uint16Array(2 * n);
  const layers = new Uint8Array(3 * n);
  for (let y = 0, i = 0; y < S; y++)
    for (let x = 0; x < S; x++, i++) {
      uv[i] = Math.round(((x + 0.5) / S) * 65535);
      uv[n + i] = Math.round(((y + 0.5) / S) * 65535);
      layers[i * 3] = 255;
      layers[i * 3 + 1] = 255;
    }
  const out = new Uint8Array(n * 3);
  const params = materialParams({
    baseHex: '#808080',
    phoneHex: '#000000',
    transparency: 0,
    shading: 1,
    highlight: 0,
    grain: 0.3,
    ink: 0.9,
    magsafeRing: false,
  });
  warpKernel({
    width: S,
    height: S,
    out,
    background: new Uint8Array(n * 3),
    box: { left: 0, top: 0, width: S, height: S },
    uv,
    layers,
    art: new Uint8Array(4),
    artWidth: 1,
    artHeight: 1,
    backMm: [mm, mm],
    grainTex: tex,
    grainSize: GRAIN_SIZE,
    params,
  });
  let step = 0;
  let mean = 0;
  for (let y = 0; y < S; y++)
    for (let x = 1; x < S; x++) step += Math.abs(out[(y * S + x) * 3] - out[(y * S + x - 1) * 3]);
  for (let i = 0; i < n; i++) mean += out[i * 3] / n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += (out[i * 3] - mean) ** 2 / n;
  return { step: step / (S * (S - 1)), sd: Math.sqrt(sq), mean };
}

describe('leather grain at the output scale', () => {
  const tex = new Uint8Array(GRAIN_BYTES);
  drawGrain(tex);
  const fullOnly = tex.slice(0, GRAIN_SIZE * GRAIN_SIZE);

  it('keeps a mipmap of the tile: each level the one before averaged, the grain fading level by level', () => {
    let at = 0;
    let sdBefore = Number.POSITIVE_INFINITY;
    for (let l = 0; l < GRAIN_LEVELS; l++) {
      const level = tex.subarray(at, at + (GRAIN_SIZE >> l) ** 2);
      const mean = level.reduce((s, v) => s + v, 0) / level.length;
      const sd = Math.sqrt(level.reduce((s, v) => s + (v - mean) ** 2, 0) / level.length);
      assert.ok(Math.abs(mean - GRAIN_MEAN) < 1.5, `level ${l} keeps the mean (${mean.toFixed(2)})`);
      assert.ok(sd < sdBefore, `level ${l} is smoother than the one before (${sd.toFixed(2)})`);
      sdBefore = sd;
      at += level.length;
    }
    assert.equal(at, GRAIN_BYTES);
  });

  it('draws a case seen large crisp, from the full tile, and a case seen small soft, without speckle', () => {
    // 2000 px: ~10 px a mm (half a texel a pixel); the mipmap is not read.
    const near = leather(tex, 16);
    assert.deepEqual(near, leather(fullOnly, 16), 'a large case reads the full tile only');
    assert.ok(near.sd > 4, `the grain shows crisp at a large scale (sd ${near.sd.toFixed(2)})`);
    // ~2.7 px a mm (2.2 texels a pixel), as a case in a 1000 px stage: filtered, not aliased.
    const far = leather(tex, 60);
    const aliased = leather(fullOnly, 60);
    assert.ok(
      far.step < aliased.step * 0.6,
      `the speckle from pixel to pixel falls (${far.step.toFixed(2)} against ${aliased.step.toFixed(2)} unfiltered)`,
    );
    assert.ok(far.sd > 1, `a soft grain remains (sd ${far.sd.toFixed(2)})`);
    assert.ok(Math.abs(far.mean - aliased.mean) < 2, 'the filtered grain keeps the colour');
  });
});

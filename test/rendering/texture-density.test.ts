import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { artworkKernel } from '../../src/modules/rendering/artwork-kernel.ts';
import { artworkLayout, grain, textureEdge } from '../../src/modules/rendering/fit.ts';
import { generatedTemplate } from '../../src/modules/rendering/generated.ts';
import { GRAIN_SIZE } from '../../src/modules/rendering/grain.ts';
import { composeRender } from '../../src/modules/rendering/renderer.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { preparedFor } from '../../src/modules/rendering/template-cache.ts';
import { texelsKernel } from '../../src/modules/rendering/texels.ts';
import { materialParams, warpKernel } from '../../src/modules/rendering/warp.ts';
import { LocalBlobStore } from '../../src/platform/storage.ts';

/** A UV map of a box `w` x `h` whose u grows by `du` a pixel across and v by `dv` a pixel down. */
function affine(w: number, h: number, du: number, dv: number) {
  const n = w * h;
  const uv = new Uint16Array(n * 2);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      uv[y * w + x] = x * du;
      uv[n + y * w + x] = y * dv;
    }
  return { box: { left: 0, top: 0, width: w, height: h }, uv, layers: new Uint8Array(n * 3).fill(255) };
}

describe("the artwork's texture is fitted at the density the back shows in the frame", () => {
  const dir = mkdtempSync(join(tmpdir(), 'texture-density-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts the pixels a unit of u and of v spans on the back', () => {
    // 1024 a pixel across: 65535 / 1024 = 64 pixels a unit of u; 2048 down: 32 a unit of v.
    assert.deepEqual(texelsKernel(affine(60, 30, 1024, 2048)), [64, 32]);
    // A sliver of much denser pixels (a rounded edge) is below the quantile; no mask is no back.
    const j = affine(60, 100, 1024, 512);
    for (let i = 0; i < 60; i++) j.uv[j.uv.length / 2 + 99 * 60 + i] = j.uv[j.uv.length / 2 + 98 * 60 + i] + 8;
    assert.deepEqual(texelsKernel(j), [64, 128]);
    j.layers.fill(0);
    assert.deepEqual(texelsKernel(j), [0, 0]);
  });

  it('sizes the texture by its side the back spans most, never above the frame', () => {
    // A back twice as tall as wide: 300 px a unit of u needs a 600 px tall texture for its width.
    assert.equal(textureEdge([300, 500], [80, 160], 2000), 600);
    assert.equal(textureEdge([200, 700], [80, 160], 2000), 700);
    assert.equal(textureEdge([700, 300], [160, 80], 2000), 700);
    assert.equal(textureEdge([1800, 3000], [80, 160], 2000), 2000);
    assert.equal(textureEdge([0, 0], [80, 160], 2000), 2000, 'no back in the frame: the frame');
  });

  it('renders a 3D stage within a stated tolerance of the artwork fitted at the frame', async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-15')!;
    const st = STAGES[0];
    const output = { widthPx: 900, heightPx: 900, format: 'png' as const };
    const parts = await generatedTemplate(
      { blobs: new LocalBlobStore(dir), log: console },
      { kind: 'stage', stage: st.key, view: st.views[0].key },
      { device, caseType: CASE_TYPES.tough } as never,
      output,
    );
    const t = { ...parts, output, cacheKey: 'texture-density' };
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="1200">
      <defs><pattern id="p" width="12" height="12" patternUnits="userSpaceOnUse"><rect width="6" height="12" fill="#111"/>
      <rect x="6" width="6" height="12" fill="#eee"/></pattern></defs>
      <rect width="600" height="1200" fill="#e04070"/><rect y="100" width="600" height="300" fill="url(#p)"/>
      <circle cx="300" cy="800" r="200" fill="#ffd166"/></svg>`;
    const art = await sharp(Buffer.from(svg)).png().toBuffer();
    const rendered = await sharp((await composeRender(t, art)).media)
      .raw()
      .toBuffer();

    // The same warp with the artwork fitted at the frame's long edge.
    const held = preparedFor(t);
    const p = await held.layers;
    const edge = textureEdge(p.texels, t.backMm, 900);
    assert.ok(edge < 900 * 0.8, `the back spans less than the frame: a ${edge} px texture`);
    const f = artworkLayout({ width: 600, height: 1200 }, t, 900);
    const tex = new Uint8Array(f.width * f.height * 4);
    await artworkKernel({ image: art, width: f.width, height: f.height, art: f.art, out: tex });
    const reference = new Uint8Array(900 * 900 * 3);
    warpKernel({
      ...p,
      out: reference,
      art: tex,
      artWidth: f.width,
      artHeight: f.height,
      backMm: t.backMm,
      grainTex: await grain(),
      grainSize: GRAIN_SIZE,
      params: materialParams(t.material),
    });
    held.done();
    let sum = 0;
    let boxSum = 0;
    for (let i = 0; i < reference.length; i++) {
      const d = Math.abs(reference[i] - rendered[i]);
      sum += d;
      const px = i / 3;
      const x = px % 900;
      const y = Math.floor(px / 900);
      if (x >= p.box.left && x < p.box.left + p.box.width && y >= p.box.top && y < p.box.top + p.box.height)
        boxSum += d;
    }
    const frameMean = sum / reference.length;
    const boxMean = boxSum / (p.box.width * p.box.height * 3);
    // Stated tolerance: the frame within 0.5 of 255 on average, the case's box within 3 (the
    // stripes' edges fall a fraction of a texel apart).
    assert.ok(frameMean < 0.5, `frame mean difference ${frameMean.toFixed(3)}`);
    assert.ok(boxMean < 3, `box mean difference ${boxMean.toFixed(3)}`);
    assert.ok(boxMean > 0, 'the texture differs: the comparison compares two fits');
  });
});

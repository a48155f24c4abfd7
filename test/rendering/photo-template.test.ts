import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { caseOutline } from '../../src/modules/catalog/geometry.ts';
import { generatedTemplate } from '../../src/modules/rendering/generated.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { LocalBlobStore } from '../../src/platform/storage.ts';
import { pixelJobsRun } from '../../src/modules/rendering/pixel-threads.ts';
import { isRawTemplate } from '../../src/modules/rendering/raw-template.ts';
import {
  type Corners,
  cornerProblem,
  invert3,
  project,
  squareToQuad,
} from '../../src/modules/rendering/photo/homography.ts';
import { photoTemplate } from '../../src/modules/rendering/photo/template.ts';

const device = loadDevices().find((d) => d.key === 'iphone-17-pro')!;
const SIZE = { width: 600, height: 450 };
/** A tilted back in perspective: the far (top) side shorter than the near one. */
const CORNERS: Corners = [
  [250, 90],
  [370, 100],
  [390, 370],
  [200, 350],
];

/** A "photo" of a grey table lit from the left: brighter on the left, darker on the right. */
const photo = () =>
  sharp(
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE.width}" height="${SIZE.height}">
      <defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#e0e0e0"/><stop offset="1" stop-color="#707070"/></linearGradient></defs>
      <rect width="100%" height="100%" fill="url(#g)"/></svg>`),
  )
    .jpeg()
    .toBuffer();

const at = async (png: Buffer, x: number, y: number) => {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [...data.subarray(i, i + info.channels)];
};

describe('photo scenes: the homography', () => {
  it('takes the unit square onto the marked corners and back', () => {
    const h = squareToQuad(CORNERS);
    const inv = invert3(h);
    for (const [i, [u, v]] of [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 1],
    ].entries()) {
      const [x, y] = project(h, u, v);
      assert.ok(Math.abs(x - CORNERS[i][0]) < 1e-6 && Math.abs(y - CORNERS[i][1]) < 1e-6, `corner ${i}`);
      const [bu, bv] = project(inv, x, y);
      assert.ok(Math.abs(bu - u) < 1e-9 && Math.abs(bv - v) < 1e-9);
    }
    // Perspective, not affine: the back's middle is not the corners' average.
    const [mx, my] = project(h, 0.5, 0.5);
    assert.ok(Math.hypot(mx - 302.5, my - 227.5) > 1);
  });

  it('accepts a convex clockwise quadrilateral inside the photo and refuses every other', () => {
    assert.equal(cornerProblem(CORNERS, 600, 450), null);
    const swapped: Corners = [CORNERS[0], CORNERS[2], CORNERS[1], CORNERS[3]];
    assert.equal(cornerProblem(swapped, 600, 450)?.code, 'photo_scene_corners_invalid');
    assert.match(cornerProblem(swapped, 600, 450)!.message, /convex/);
    const dented: Corners = [CORNERS[0], CORNERS[1], [300, 200], CORNERS[3]];
    assert.equal(cornerProblem(dented, 600, 450)?.code, 'photo_scene_corners_invalid');
    const mirrored: Corners = [CORNERS[1], CORNERS[0], CORNERS[3], CORNERS[2]];
    assert.match(cornerProblem(mirrored, 600, 450)!.message, /anticlockwise/);
    const tiny: Corners = [
      [10, 10],
      [30, 10],
      [30, 60],
      [10, 60],
    ];
    assert.match(cornerProblem(tiny, 600, 450)!.message, /at least 48 px/);
    const outside: Corners = [CORNERS[0], [640, 100], CORNERS[2], CORNERS[3]];
    assert.equal(cornerProblem(outside, 600, 450)?.code, 'photo_scene_corners_outside');
    assert.equal(
      cornerProblem([CORNERS[0], CORNERS[1], CORNERS[2], [200, -1]], 600, 450)?.code,
      'photo_scene_corners_outside',
    );
  });
});

describe('photo scenes: the template', () => {
  it("places the case by the corners, lights it by the photo's light and shadows the photo, on the threads", async () => {
    const before = pixelJobsRun().photo;
    const ct = CASE_TYPES.tough;
    const t = await photoTemplate(await photo(), SIZE, CORNERS, device, ct, materialFor(ct, phoneColour(device)), SIZE);
    assert.equal(pixelJobsRun().photo, before + 1);
    const h = squareToQuad(CORNERS);
    const [cx, cy] = project(h, 0.5, 0.75).map(Math.round);
    // Inside the back: the mask is full and the UV map says where on the back this is.
    const [mask] = await at(t.layers, cx, cy);
    assert.equal(mask, 255);
    const uvRaw = await sharp(t.uv)
      .toColourspace('rgb16')
      .raw({ depth: 'ushort' })
      .toBuffer({ resolveWithObject: true });
    const samples = new Uint16Array(uvRaw.data.buffer, uvRaw.data.byteOffset, uvRaw.data.length / 2);
    const i = (cy * uvRaw.info.width + cx) * uvRaw.info.channels;
    const [u, v] = [samples[i], samples[i + 1]];
    assert.ok(Math.abs(u / 65535 - 0.5) < 0.02 && Math.abs(v / 65535 - 0.75) < 0.02, `uv ${u} ${v}`);
    // Near the corners (below the camera) the mask is still set; well outside it is not.
    for (const [uu, vv] of [
      [0.9, 0.3],
      [0.06, 0.97],
      [0.94, 0.97],
    ]) {
      const [x, y] = project(h, uu, vv).map(Math.round);
      assert.equal((await at(t.layers, x, y))[0], 255, `inside near ${uu},${vv}`);
    }
    assert.equal((await at(t.layers, 20, 20))[0], 0);
    // The photo's light: the left of the back (nearer the bright side) is shaded lighter.
    const [lx, ly] = project(h, 0.2, 0.7).map(Math.round);
    const [rx, ry] = project(h, 0.8, 0.7).map(Math.round);
    assert.ok((await at(t.layers, lx, ly))[1] > (await at(t.layers, rx, ry))[1] + 10);
    // The contact shadow: the photo just outside the case is darker than the untouched photo.
    const raw = await sharp(await photo())
      .png()
      .toBuffer();
    const [ox, oy] = project(h, 0.5, 1.01).map(Math.round);
    assert.ok((await at(t.background, ox, oy))[0] < (await at(raw, ox, oy))[0] - 20, 'shadowed below the case');
    assert.deepEqual(await at(t.background, 5, 5), await at(raw, 5, 5), 'far from the case the photo is unchanged');
    // The camera cut-out shows the phone: no mask there.
    const [hx, hy] = project(h, 0.25, 0.1).map(Math.round);
    assert.equal((await at(t.layers, hx, hy))[0], 0);
    const o = caseOutline(device, ct);
    assert.deepEqual(t.backMm, [o.widthMm, o.heightMm]);
  });

  it('is drawn once per photo, corners, model, case type and size, then read from the blob store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'photo-blobs-'));
    try {
      const blobs = new LocalBlobStore(dir);
      await blobs.put('images/org/photo.jpg', await photo());
      const g = { kind: 'photo' as const, photo: 'images/org/photo.jpg', ...SIZE, corners: CORNERS };
      const shape = { device, caseType: CASE_TYPES.clear } as Parameters<typeof generatedTemplate>[2];
      const output = { widthPx: 400, heightPx: 300 };
      const before = pixelJobsRun().photo;
      const first = await generatedTemplate({ blobs, log: console }, g, shape, output);
      assert.ok('load' in first);
      const drawn = await first.load();
      assert.ok(!isRawTemplate(drawn), 'a photo drawing is handed over as its PNGs');
      assert.equal(pixelJobsRun().photo, before + 1);
      const again = await generatedTemplate({ blobs, log: console }, g, shape, output);
      assert.ok('load' in again);
      assert.equal(again.cacheKey, first.cacheKey);
      const read = await again.load();
      assert.ok(!isRawTemplate(read));
      for (const k of ['background', 'uv', 'layers'] as const) assert.ok(read[k].equals(drawn[k]), k);
      assert.equal(pixelJobsRun().photo, before + 1, 'read back, not drawn again');
      // Other corners are another drawing.
      const moved = await generatedTemplate(
        { blobs, log: console },
        { ...g, corners: [CORNERS[3], CORNERS[0], CORNERS[1], CORNERS[2]] },
        shape,
        output,
      );
      assert.notEqual('cacheKey' in moved && moved.cacheKey, first.cacheKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

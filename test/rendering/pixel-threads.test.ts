import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import sharp, { type Color } from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { FRONTAL_VERSION, frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import {
  SPARE_MAX_BYTES,
  leaseShared,
  pixelJobsRun,
  pixelThreads,
  releaseIdleWarpMemory,
  releaseShared,
  retainShared,
  runWarp,
  spareSharedBytes,
  thumbHashOnThreads,
} from '../../src/modules/rendering/pixel-threads.ts';
import { composeRender, releaseRenderMemory, templatesDecoded } from '../../src/modules/rendering/renderer.ts';
import { fromPrintArea } from '../../src/modules/rendering/templates.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { drawStage, renderPlate, stageTemplate } from '../../src/modules/rendering/stage/template.ts';
import { across, quadrants, template } from './compositor-support.ts';
import { near, pixel } from './pixels.ts';

/** The decoded samples of a PNG: stable across zlib and libvips versions, unlike its bytes. */
const pixelsHash = async (png: Buffer) =>
  createHash('sha256')
    .update(await sharp(png).raw().toBuffer())
    .digest('hex')
    .slice(0, 16);

const solid = (width: number, height: number, channels: 3 | 4, background: Color) =>
  sharp({ create: { width, height, channels, background } }).png().toBuffer();

const legacy = async () =>
  fromPrintArea({
    background: await solid(120, 90, 3, '#808080'),
    mask: await solid(40, 60, 3, '#ffffff'),
    overlay: await solid(40, 60, 4, { r: 200, g: 30, b: 30, alpha: 0.5 }),
    printArea: { x: 30, y: 10, width: 40, height: 60, rotation: 17 },
  });

describe("the mockups' pixel loops run on the compositor's threads", () => {
  it('draws a template, converts an old one and renders without a per-pixel loop on the event loop', async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-17-pro')!;
    const before = pixelJobsRun();
    const decodedBefore = templatesDecoded();
    const t = await frontalTemplate(device, CASE_TYPES.leather, { width: 150, height: 200 });
    const old = await legacy();
    // A size no other test uses: its layers are decoded (and packed) afresh.
    await composeRender(
      { ...t, output: { widthPx: 75, heightPx: 100, format: 'png' } },
      await solid(30, 40, 3, '#3060c0'),
    );
    const after = pixelJobsRun();
    assert.equal(after.frontal - before.frontal, 1, 'the drawn template');
    assert.equal(after.printArea - before.printArea, 1, 'the rectangle template');
    assert.equal(templatesDecoded() - decodedBefore, 1, "the template's decode (its UV map's bands split by libvips)");
    assert.equal(after.artwork - before.artwork, 1, "the artwork's fit into shared memory");
    assert.equal(after.warp - before.warp, 1, 'the warp');
    assert.equal(after.thumbhash - before.thumbhash, 1, 'the ThumbHash');
    assert.ok(old.uv.length > 0 && old.layers.length > 0);
  });

  it(`draws the same template as FRONTAL_VERSION ${FRONTAL_VERSION} names (stored drawings are found by it)`, async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-17-pro')!;
    const t = await frontalTemplate(device, CASE_TYPES.leather, { width: 150, height: 200 });
    // Bump FRONTAL_VERSION when the drawing changes on purpose, then update these.
    assert.deepEqual([await pixelsHash(t.uv), await pixelsHash(t.layers)], ['78b226a9a9658c0a', '18c0bd86b7d02831']);
  });

  it('converts a rectangle template: rotated UV map, mask and overlay', async () => {
    const t = await legacy();
    assert.deepEqual([await pixelsHash(t.uv), await pixelsHash(t.layers)], ['3224ad50eaafbaa8', '22d58e2cc457463d']);
    // The print area's centre shows the artwork's centre through the mask.
    const uv = await sharp(t.uv).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer();
    const layers = await sharp(t.layers).raw().toBuffer();
    const i = 40 * 120 + 50;
    assert.ok(
      Math.abs(uv.readUInt16LE(i * 6) / 65535 - 0.5) < 0.02 &&
        Math.abs(uv.readUInt16LE(i * 6 + 2) / 65535 - 0.5) < 0.02,
    );
    assert.equal(layers[i * 3], 255);
    // A corner lies outside it: no mask, shading untouched.
    assert.deepEqual([...layers.subarray(0, 3)], [0, 255, 0]);
  });

  it('ends a thread that drew a template once it is idle, and keeps one that only renders', async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-17-pro')!;
    const t = await frontalTemplate(device, CASE_TYPES.clear, { width: 120, height: 160 });
    // Its isolate would hold the drawing's shared buffers until a collection it seldom makes.
    assert.equal(pixelThreads(), 0, 'the drawing thread ended');
    await composeRender(
      { ...t, output: { widthPx: 60, heightPx: 80, format: 'png' } },
      await solid(30, 40, 3, '#c03060'),
    );
    assert.equal(pixelThreads(), 1, 'the render thread stays for the next render');
    await legacy();
    assert.equal(pixelThreads(), 0, 'converting a rectangle template is one-off work too');
  });

  it("keeps the thread that drew a stage's plate and case: their buffers came back with the answer", async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-15')!;
    const st = STAGES[0];
    const size = { width: 200, height: 200 };
    const raw = await renderPlate(st, st.views[0], size);
    assert.equal(pixelThreads(), 1, 'the plate came back too: its thread stays');
    const plate = await sharp(raw, { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    const material = materialFor(CASE_TYPES.tough, phoneColour(device));
    const before = pixelJobsRun();
    const t = await stageTemplate(plate, st, st.views[0], device, CASE_TYPES.tough, material, size);
    assert.equal(pixelJobsRun().case - before.case, 1);
    // The plate's PNG is decoded into the template's background on the thread, not on the event loop.
    assert.equal(pixelJobsRun().decode - before.decode, 1);
    assert.equal(pixelThreads(), 1, 'the case thread stays for the renders of the model');
    // What came back is the drawing: the case's mask is in the layers.
    const layers = await sharp(t.layers).raw().toBuffer();
    assert.ok(layers.some((v, i) => i % 3 === 0 && v === 255));
    await composeRender(
      { ...t, output: { widthPx: 100, heightPx: 100, format: 'png' } },
      await solid(30, 40, 3, '#30c060'),
    );
    assert.equal(pixelThreads(), 1, 'the render ran on it');
  });

  it("hands a stage drawing's leased background back to the spares when its plate does not decode", async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-15')!;
    const st = STAGES[0];
    const size = { width: 120, height: 100 };
    const material = materialFor(CASE_TYPES.tough, phoneColour(device));
    releaseIdleWarpMemory();
    assert.equal(spareSharedBytes(), 0);
    const plate = Buffer.from('not a png at all');
    await assert.rejects(drawStage(plate, st, st.views[0], device, CASE_TYPES.tough, material, size));
    assert.equal(spareSharedBytes(), 120 * 100 * 3, 'the background is a spare again');
    const next = leaseShared(120 * 100 * 3);
    assert.equal(spareSharedBytes(), 0, 'and the next lease of that length takes it');
    assert.equal(next.byteLength, 120 * 100 * 3);
  });

  it('fails a job that cannot be posted and leaves its thread idle for the next job', async () => {
    // A function does not clone: postMessage throws before the thread sees anything.
    await assert.rejects(runWarp({ width: 1, height: 1, params: () => 0 } as never), /could not be cloned/);
    releaseIdleWarpMemory();
    assert.equal(pixelThreads(), 0, 'the thread was idle again, so it ended');
    const hash = await thumbHashOnThreads(1, 1, new Uint8Array([200, 30, 30, 255]));
    assert.ok(hash.length > 0, 'a fresh thread answers the next job');
  });

  it("fails a job that throws on its thread with the thread's message, its stack kept for logs only", async () => {
    const err = await runWarp({ width: 4, height: 4 } as never).then(
      () => assert.fail('a warp without buffers cannot run'),
      (e: Error) => e,
    );
    assert.ok(err.message.length > 0, 'the thread says why');
    assert.doesNotMatch(err.message, /\n\s+at /, 'no stack frames in the message a failure reason is made of');
    assert.match(err.stack ?? '', /\n\s+at .*pixel|\n\s+at /, "the thread's stack stays on the error for logs");
  });
});

describe('shared buffers reused between renders', () => {
  it('hands a released buffer out again, and only whole shared buffers, once each, within the bound', () => {
    const a = leaseShared(4096);
    const before = spareSharedBytes();
    releaseShared(a);
    releaseShared(a);
    assert.equal(spareSharedBytes(), before + 4096, 'a second release of the same buffer is ignored');
    const b = leaseShared(4096);
    assert.equal(b.buffer, a.buffer, 'the spare is reused');
    assert.equal(spareSharedBytes(), before);
    releaseShared(b.subarray(16));
    releaseShared(new Uint8Array(4096));
    assert.equal(spareSharedBytes(), before, 'views of part of a buffer and unshared memory are not kept');
    const big = Array.from({ length: 5 }, () => leaseShared(16 * 1024 * 1024));
    for (const x of big) releaseShared(x);
    assert.ok(spareSharedBytes() <= SPARE_MAX_BYTES, `spares stay within the cap (${spareSharedBytes()})`);
  });

  it('keeps a buffer with more than one holder out of the spares until the last lets it go', () => {
    releaseRenderMemory();
    const a = leaseShared(8192);
    const before = spareSharedBytes();
    retainShared(a);
    retainShared(a);
    releaseShared(a);
    releaseShared(a);
    assert.equal(spareSharedBytes(), before, 'two of three holders released: still held');
    assert.notEqual(leaseShared(8192).buffer, a.buffer, 'not handed out while held');
    releaseShared(a);
    assert.equal(spareSharedBytes(), before + 8192, 'the last holder released: a spare');
    assert.equal(leaseShared(8192).buffer, a.buffer);
  });

  it('beyond its cap lets go of the lengths handed back longest ago, keeping those rendered now', () => {
    const MB = 1024 * 1024;
    // Sizes of earlier templates (distinct lengths of 6 MB each) fill the spares up to their cap...
    const stale = Array.from({ length: Math.floor(SPARE_MAX_BYTES / (6 * MB)) }, (_, i) => leaseShared(6 * MB + i));
    for (const x of stale) releaseShared(x);
    // ...then a render of another size hands back its output and artwork: both are kept.
    const out = leaseShared(12 * MB - 1);
    const art = leaseShared(8 * MB - 1);
    releaseShared(out);
    releaseShared(art);
    assert.ok(spareSharedBytes() <= SPARE_MAX_BYTES, `within the cap (${spareSharedBytes()})`);
    assert.equal(leaseShared(12 * MB - 1).buffer, out.buffer, 'the output buffer is reused');
    assert.equal(leaseShared(8 * MB - 1).buffer, art.buffer, 'the artwork buffer is reused');
    // The oldest stale lengths went to make room; the newest of them is still there.
    assert.notEqual(leaseShared(6 * MB).buffer, stale[0].buffer, 'the length handed back first went');
    const last = stale.at(-1)!;
    assert.equal(leaseShared(last.length).buffer, last.buffer, 'the length handed back last stays');
    // A buffer larger than the cap is never kept.
    const huge = leaseShared(SPARE_MAX_BYTES + 1);
    const held = spareSharedBytes();
    releaseShared(huge);
    assert.equal(spareSharedBytes(), held);
  });

  it('gives the same picture from reused buffers: nothing of the render before shows through', async () => {
    const t = await template(across);
    const first = await composeRender(t, await quadrants());
    const red = await solid(100, 100, 3, '#ff0000');
    const other = await composeRender(t, red);
    assert.ok(near(await pixel(other.media, 140, 80), [255, 0, 0], 3), 'the second artwork, not the first');
    const again = await composeRender(t, await quadrants());
    assert.deepEqual(again.media, first.media, 'byte for byte the same as the first render');
  });
});

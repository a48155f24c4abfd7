import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { artworkBox } from '../../src/modules/catalog/artwork-fit.ts';
import { CASE_TYPES, CASE_TYPE_KEYS } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { caseOutline } from '../../src/modules/catalog/geometry.ts';
import { frontalTemplate } from '../../src/modules/rendering/frontal.ts';
import { phoneColour } from '../../src/modules/rendering/materials.ts';
import {
  PREPARED_MAX_BYTES,
  RENDER_IDLE_MS,
  RenderInputError,
  type Template,
  composeRender,
  preparedTemplateBytes,
  preparedTemplates,
  releaseRenderMemory,
  TemplateUnavailableError,
  templatesDecoded,
} from '../../src/modules/rendering/renderer.ts';
import { leaseShared, releaseShared, spareSharedBytes } from '../../src/modules/rendering/pixel-threads.ts';
import { cutBox, maskBox } from '../../src/modules/rendering/mask-box.ts';
import type { RawTemplate } from '../../src/modules/rendering/raw-template.ts';
import { hexRgb } from '../../src/modules/rendering/warp.ts';
import {
  H,
  W,
  across,
  halfFrameDrawing,
  maskBoxOf,
  maskLayers,
  quadrants,
  randomWarpFrame,
  solidPng,
  stats,
  template,
} from './compositor-support.ts';
import { layersPng, near, pixel } from './pixels.ts';

const FIT_100 = { widthMm: 100, heightMm: 100, bleedMm: 0 };

describe('the compositor (UV map, layers, material)', () => {
  it('places each artwork pixel where the UV map says, and keeps the background outside the mask', async () => {
    // A constant UV: every masked pixel shows the artwork at (0.75, 0.25), the green quadrant.
    const out = await composeRender(await template(() => [0.75, 0.25]), await quadrants());
    assert.ok(near(await pixel(out.media, 100, 50), [0, 255, 0], 3));
    assert.ok(near(await pixel(out.media, 20, 50), [0, 0, 0], 3), 'outside the mask: the background');
    // A mirrored map: the left of the print shows the artwork's right half.
    const mirrored = await composeRender(await template((x, y) => [1 - (x - 50) / 100, y / 100]), await quadrants());
    assert.ok(near(await pixel(mirrored.media, 60, 20), [0, 255, 0], 3), 'top left shows the top-right quadrant');
    assert.ok(near(await pixel(mirrored.media, 140, 80), [0, 0, 255], 3), 'bottom right shows the bottom-left one');
  });

  it('multiplies the shading and screens the highlight', async () => {
    const base = await template(() => [0.25, 0.75]);
    const mask = new Uint8Array(W * H).fill(255);
    const half = new Uint8Array(W * H).fill(128);
    const shaded = await composeRender(
      { ...base, layers: await layersPng(W, H, mask, half, new Uint8Array(W * H)) },
      await quadrants(),
    );
    assert.ok(near(await pixel(shaded.media, 100, 50), [0, 0, 128], 3), 'blue at half light');
    const lit = await composeRender({ ...base, layers: await layersPng(W, H, mask, mask, half) }, await quadrants());
    // The highlight layer is squared: a faint sheen leaves the print alone, a hot spot goes white.
    assert.ok(near(await pixel(lit.media, 100, 50), [64, 64, 255], 3), 'blue screened with 25 % white at half');
    const hot = await composeRender({ ...base, layers: await layersPng(W, H, mask, mask, mask) }, await quadrants());
    assert.ok(near(await pixel(hot.media, 100, 50), [255, 255, 255], 3), 'a full highlight is white');
  });

  it('gives each case type its own look: phone colour through clear, grain on leather, shine on gloss', async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-17-pro')!;
    // A transparent artwork: what shows is the case material itself.
    const clearArt = await solidPng(50, 100, { r: 0, g: 0, b: 0, alpha: 0 }, 4);
    const looks: Record<string, Awaited<ReturnType<typeof stats>>> = {};
    // At the straight-on shot's 1000 px: the leather's pebbles are a few pixels across (a case seen
    // smaller shows its grain filtered to a faint texture).
    for (const type of CASE_TYPE_KEYS) {
      const t = await frontalTemplate(device, CASE_TYPES[type], { width: 1000, height: 1000 });
      const out = await composeRender({ ...t, output: { widthPx: 1000, heightPx: 1000, format: 'png' } }, clearArt);
      // A patch in the lower middle of the back, away from the camera and the rim.
      looks[type] = await stats(out.media, { left: 450, top: 625, width: 100, height: 100 });
    }
    const phone = hexRgb(phoneColour(device));
    const dist = (a: number[], b: number[]) => Math.hypot(...a.map((v, i) => v - b[i]));
    assert.ok(
      dist(looks.clear.mean, phone) < dist(looks.tough.mean, phone),
      'the clear case is closer to the phone colour',
    );
    for (const [a, b] of [
      ['clear', 'tough'],
      ['tough', 'leather'],
      ['magsafe', 'tough'],
      ['leather', 'wallet'],
    ])
      assert.ok(dist(looks[a].mean, looks[b].mean) > 20, `${a} and ${b} look different`);
    assert.ok(looks.leather.stdev > looks.tough.stdev + 2, 'leather has grain');
  });

  it("leaves a clear case's rim unprinted on the straight-on shot, the phone showing through it", async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-15')!;
    const red = await solidPng(400, 800, '#ff0000');
    const S = 800;
    for (const key of ['clear', 'tough'] as const) {
      const ct = CASE_TYPES[key];
      const t = await frontalTemplate(device, ct, { width: S, height: S });
      const out = (await composeRender({ ...t, output: { widthPx: S, heightPx: S, format: 'png' } }, red)).media;
      const o = caseOutline(device, ct);
      const k = Math.min((0.8 * S) / o.heightMm, (0.8 * S) / o.widthMm);
      const x0 = (S - o.widthMm * k) / 2;
      const [rr, rg] = await pixel(out, Math.round(x0 + 1 * k), S / 2);
      const [br, bg] = await pixel(out, Math.round(x0 + 8 * k), S / 2);
      assert.ok(br > 200 && bg < 40, `${key}: the back is printed (${br}, ${bg})`);
      if (key === 'clear') assert.ok(rg > 120, `clear: 1 mm in, the rim shows the phone (${rr}, ${rg})`);
      else assert.ok(rr > 150 && rg < 40, `tough: printed to its outline (${rr}, ${rg})`);
    }
  });

  it('writes WebP, JPEG and PNG up to 2000 px and refuses larger outputs', async () => {
    const t = await template(() => [0.5, 0.5]);
    for (const format of ['webp', 'jpeg', 'png'] as const) {
      const out = await composeRender({ ...t, output: { widthPx: 2000, heightPx: 1000, format } }, await quadrants());
      const meta = await sharp(out.media).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], [format, 2000, 1000]);
      assert.equal((await sharp(out.thumbnail).metadata()).width, 256);
    }
    await assert.rejects(
      composeRender({ ...t, output: { widthPx: 2001, heightPx: 100, format: 'png' } }, await quadrants()),
      RenderInputError,
    );
  });

  it('renders odd artwork sensibly: 1x1, tiny, extreme aspect, transparent, 16-bit grey', async () => {
    const t = await template(across);
    const odd = {
      onePixel: await solidPng(1, 1, '#ff8800'),
      tiny: await quadrants().then((b) => sharp(b).resize(8, 8, { kernel: 'nearest' }).png().toBuffer()),
      banner: await solidPng(1000, 100, '#00ff00'),
      grey16: await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } })
        .greyscale()
        .toColourspace('grey16')
        .png()
        .toBuffer(),
    };
    assert.ok(near(await pixel((await composeRender(t, odd.onePixel)).media, 100, 50), [255, 136, 0], 3));
    // Tiny artwork is enlarged with nearest-neighbour: the quadrants keep hard edges.
    const tiny = (await composeRender(t, odd.tiny)).media;
    assert.ok(near(await pixel(tiny, 97, 25), [255, 0, 0], 3), `crisp red: ${await pixel(tiny, 97, 25)}`);
    assert.ok(near(await pixel(tiny, 103, 25), [0, 255, 0], 3), `crisp green: ${await pixel(tiny, 103, 25)}`);
    assert.equal(artworkBox({ width: 8, height: 8 }, FIT_100).kernel, 'nearest');
    // A 10:1 banner is fitted whole across the middle; above it the white case shows.
    const banner = (await composeRender(t, odd.banner)).media;
    assert.ok(near(await pixel(banner, 100, 50), [0, 255, 0], 3), 'the banner');
    assert.ok(near(await pixel(banner, 100, 20), [255, 255, 255], 3), 'the case above it');
    assert.equal(artworkBox({ width: 4000, height: 20 }, FIT_100).fit, 'contain');
    assert.equal(artworkBox({ width: 150, height: 100 }, FIT_100).fit, 'cover');
    assert.ok(near(await pixel((await composeRender(t, odd.grey16)).media, 100, 50), [128, 128, 128], 4));
  });
});

describe('render memory between runs of renders', () => {
  it('lets the decoded templates and spare buffers go once renders stop, never during one', async () => {
    const t = { ...(await template(across)), cacheKey: 'idle-test' };
    const art = await quadrants();
    const first = await composeRender(t, art);
    const under = composeRender(t, art);
    releaseRenderMemory();
    assert.ok(preparedTemplates() > 0, 'a render under way keeps its template');
    await under;
    assert.ok(preparedTemplates() > 0 && spareSharedBytes() > 0);
    releaseRenderMemory();
    assert.equal(preparedTemplates(), 0);
    assert.equal(spareSharedBytes(), 0);
    const after = await composeRender(t, art);
    assert.deepEqual(after.media, first.media, 'the next render decodes again and starts a thread: same picture');
  });

  it("reads a template's pictures only when their decoded layers are not held", async () => {
    releaseRenderMemory();
    const { background, uv, layers, ...look } = await template(across);
    let loads = 0;
    const t: Template = {
      ...look,
      cacheKey: 'lazy-pictures-test',
      load: async () => {
        loads++;
        return { background, uv, layers };
      },
    };
    const art = await quadrants();
    await composeRender(t, art);
    await composeRender(t, art);
    assert.equal(loads, 1, 'the second render used the held layers');
    await composeRender({ ...t, output: { ...t.output, widthPx: 100, heightPx: 50 } }, art);
    assert.equal(loads, 2, 'another output size is decoded from the pictures');
    releaseRenderMemory();
    await composeRender(t, art);
    assert.equal(loads, 3, 'let go: read again');
  });

  it("tells a storage failure reading a template's pictures (retried) from a missing picture (not)", async () => {
    const { material, backMm, output } = await template(() => [0.5, 0.5]);
    const look = { material, backMm, output };
    const art = await quadrants();
    const reached = new Error('storage temporarily unreachable');
    const flaky: Template = { ...look, cacheKey: 'flaky-storage-test', load: async () => Promise.reject(reached) };
    await assert.rejects(composeRender(flaky, art), (err) => err === reached);
    const gone: Template = {
      ...look,
      cacheKey: 'missing-picture-test',
      load: async () => Promise.reject(new RenderInputError('template asset missing: uv (x)')),
    };
    await assert.rejects(
      composeRender(gone, art),
      (err) => err instanceof TemplateUnavailableError && /asset missing: uv/.test(err.message),
    );
  });

  it('holds decoded templates up to PREPARED_MAX_BYTES, the least recently used going first', async () => {
    releaseRenderMemory();
    const art = await quadrants();
    const base = await template(across);
    // The mask covers the middle half of the width: at 2000 x 1000 a template holds its background
    // (3 bytes a pixel) and the UV map and layers of that half (7), ~13 MB, so three fit in 48 MB.
    const big = (key: string) =>
      composeRender({ ...base, cacheKey: key, output: { widthPx: 2000, heightPx: 1000, format: 'webp' } }, art);
    for (const key of ['a', 'b', 'c']) await big(key);
    assert.equal(preparedTemplates(), 3);
    await big('a'); // used again: now the most recent
    await big('d');
    assert.equal(preparedTemplates(), 3);
    assert.ok(preparedTemplateBytes() <= PREPARED_MAX_BYTES);
    // A held template is not decoded again; the one that went is.
    const decodes = async (key: string) => {
      const before = templatesDecoded();
      await big(key);
      return templatesDecoded() - before;
    };
    assert.equal(await decodes('a'), 0, 'a stayed: used after b');
    assert.equal(await decodes('b'), 1, 'b went: the least recently used');
    releaseRenderMemory();
    assert.equal(preparedTemplateBytes(), 0);
  });

  it('keeps a drawing decoded twice (let go and asked for again while drawn) out of the spares while one holds it', async () => {
    releaseRenderMemory();
    const art = await quadrants();
    const base = await template(across);
    const output = { widthPx: 2000, heightPx: 1000, format: 'png' as const };
    const frame = output.widthPx * output.heightPx * 3;
    const drawing = halfFrameDrawing();
    let drawn = (_: RawTemplate) => {};
    const drawingDone = new Promise<RawTemplate>((resolve) => (drawn = resolve));
    const t: Template = { ...base, cacheKey: 'drawn-twice', output, load: () => drawingDone };
    const first = composeRender(t, art);
    // Four other templates push it out of the cache while it is drawn...
    await Promise.all(['p', 'q', 'r', 's'].map((k) => composeRender({ ...base, cacheKey: k, output }, art)));
    // ...and it is asked for again before its drawing is done: both decodes take the same drawing.
    const second = composeRender(t, art);
    drawn(drawing);
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual(b.media, a.media);
    // Every spare of the frame's length leased and scribbled over: none of them is the drawing's.
    const scribbled: Uint8Array[] = [];
    for (let held = spareSharedBytes(); held >= frame; held = spareSharedBytes()) {
      scribbled.push(leaseShared(frame).fill(0xff));
      if (spareSharedBytes() === held) break;
    }
    assert.ok(
      scribbled.every((x) => x.buffer !== drawing.background.buffer),
      'the held drawing is not a spare',
    );
    assert.deepEqual((await composeRender(t, art)).media, a.media, 'the held decode renders the same');
    for (const x of scribbled) releaseShared(x);
    releaseRenderMemory();
  });

  it('lets a template that leaves the cache give its background to the spares only once no render reads it', async () => {
    releaseRenderMemory();
    const quads = await quadrants();
    const base = await template(across);
    const output = { widthPx: 2000, heightPx: 1000, format: 'png' as const };
    const look = (key: string, colour: string) => ({
      ...base,
      background: solidPng(W, H, colour),
      cacheKey: key,
      output,
    });
    const keys = ['red', 'green', 'blue', 'white'] as const;
    const templates = await Promise.all(
      keys.map(async (k) => ({ ...look(k, k), background: await look(k, k).background })),
    );
    const alone = [];
    for (const t of templates) {
      alone.push((await composeRender(t, quads)).media);
      releaseRenderMemory();
    }
    // All four at once: the later ones push the first out of the cache (three fit) while it renders,
    // and the buffers they let go are leased by the others' outputs and backgrounds.
    const together = await Promise.all(templates.map((t) => composeRender(t, quads)));
    const again = await Promise.all(templates.map((t) => composeRender(t, quads)));
    for (const [i, k] of keys.entries()) {
      assert.deepEqual(together[i].media, alone[i], `${k}: the same picture while the others evict it`);
      assert.deepEqual(again[i].media, alone[i], `${k}: the same picture from reused buffers`);
    }
    assert.ok(preparedTemplates() <= 3);
    releaseRenderMemory();
  });

  it("finds the mask's box exactly: any masked pixel, however faint, and none at all", async () => {
    // The mask of a 300 x 200 frame, and its box: left, top, width, height.
    const cases: Array<[(x: number, y: number) => number, number, number, number, number]> = [
      [(x, y) => (x === 17 && y === 33 ? 1 : 0), 17, 33, 1, 1],
      [(x, y) => (x === 299 && y === 199 ? 255 : 0), 299, 199, 1, 1],
      [(x, y) => ((x === 3 && y === 150) || (x === 250 && y === 4) ? 2 : 0), 3, 4, 248, 147],
      [(x) => (x >= 50 && x < 150 ? 255 : 0), 50, 0, 100, 200],
      [() => 9, 0, 0, 300, 200],
      [() => 0, 0, 0, 0, 0],
    ];
    for (const [mask, left, top, width, height] of cases)
      assert.deepEqual(await maskBoxOf(mask), { left, top, width, height });
  });

  it('warps a template cut to its mask box exactly as the whole frame, pixel for pixel', async () => {
    const { w, h, layers, background, warp } = randomWarpFrame();
    const box = await maskBox(layers, w, h);
    assert.deepEqual(box, { left: 12, top: 6, width: 39, height: 31 });
    const whole = warp({ left: 0, top: 0, width: w, height: h }, layers);
    assert.deepEqual(warp(box, cutBox(layers, w, box, 3)), whole);
    assert.notDeepEqual(whole, background, 'the mask shows artwork, not only background');
  });

  it("holds a template's UV map and layers for its mask's box only, and renders as if whole", async (ctx) => {
    releaseRenderMemory();
    // The held bytes add up over three renders: the idle timer must not let them go in between.
    ctx.mock.timers.enable({ apis: ['setTimeout'] });
    const art = await quadrants();
    const t = { ...(await template(across)), cacheKey: 'box-test' };
    const held = await composeRender(t, art);
    // 200 x 100: background 3 bytes a pixel; the mask's 100 columns 7 (4 of UV, 3 of layers).
    assert.equal(preparedTemplateBytes(), W * H * 3 + 100 * H * 7);
    // Not cached, the same template renders byte for byte the same (decoded anew, same box).
    const { cacheKey: _, ...uncached } = t;
    const again = await composeRender(uncached, art);
    assert.deepEqual(await sharp(again.media).raw().toBuffer(), await sharp(held.media).raw().toBuffer());
    // A mask of one pixel in a corner: the box is that pixel; the rest of the frame is background.
    const corner = new Uint8Array(W * H);
    corner[W * H - 1] = 255;
    const one = await template(() => [0.75, 0.25], {
      layers: await maskLayers(corner),
      cacheKey: 'corner-test',
    });
    const dot = await composeRender(one, art);
    assert.equal(preparedTemplateBytes(), W * H * 3 + 100 * H * 7 + W * H * 3 + 7);
    assert.ok(near(await pixel(dot.media, W - 1, H - 1), [0, 255, 0], 3), 'the one masked pixel shows the artwork');
    assert.ok(near(await pixel(dot.media, W - 2, H - 1), [0, 0, 0], 3));
    // No mask at all: the background, and no UV map held.
    const none = await template(() => [0.75, 0.25], {
      layers: await maskLayers(new Uint8Array(W * H)),
      cacheKey: 'empty-mask-test',
    });
    const plain = await composeRender(none, art);
    assert.equal((await sharp(plain.media).stats()).channels[1].max, 0, 'all background (black)');
    releaseRenderMemory();
  });

  it('does so by itself once no render has run for RENDER_IDLE_MS', async (ctx) => {
    const t = { ...(await template(() => [0.25, 0.25])), cacheKey: 'idle-timer-test' };
    ctx.mock.timers.enable({ apis: ['setTimeout'] });
    await composeRender(t, await quadrants());
    assert.ok(preparedTemplates() > 0);
    ctx.mock.timers.tick(RENDER_IDLE_MS - 1);
    assert.ok(preparedTemplates() > 0, 'not before');
    ctx.mock.timers.tick(1);
    assert.equal(preparedTemplates(), 0);
    assert.equal(spareSharedBytes(), 0);
  });
});

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
  type TemplatePictures,
  composeRender,
  preparedTemplateBytes,
  preparedTemplates,
  releaseRenderMemory,
  TemplateUnavailableError,
  templatesDecoded,
} from '../../src/modules/rendering/renderer.ts';
import { PLAIN_MATERIAL } from '../../src/modules/rendering/templates.ts';
import {
  SPARE_MAX_BYTES,
  leaseShared,
  releaseShared,
  retainShared,
  spareSharedBytes,
} from '../../src/modules/rendering/pixel-threads.ts';
import { cutBox, maskBox } from '../../src/modules/rendering/mask-box.ts';
import type { RawTemplate } from '../../src/modules/rendering/raw-template.ts';
import { hexRgb, materialParams, warpKernel } from '../../src/modules/rendering/warp.ts';
import { layersPng, near, pixel, uvPng } from './pixels.ts';

const W = 200;
const H = 100;
const FIT_100 = { widthMm: 100, heightMm: 100, bleedMm: 0 };

/** A template whose UV map is `fn(x, y)` everywhere and whose mask covers x in [50, 150). */
async function template(
  fn: (x: number, y: number) => [number, number],
  over: Partial<Template & TemplatePictures> = {},
): Promise<Template & TemplatePictures> {
  const uv = new Float32Array(W * H * 2);
  const mask = new Uint8Array(W * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const [u, v] = fn(x, y);
      uv[(y * W + x) * 2] = u;
      uv[(y * W + x) * 2 + 1] = v;
      mask[y * W + x] = x >= 50 && x < 150 ? 255 : 0;
    }
  return {
    background: await sharp({ create: { width: W, height: H, channels: 3, background: '#000000' } })
      .png()
      .toBuffer(),
    uv: await uvPng(W, H, uv),
    layers: await layersPng(W, H, mask, new Uint8Array(W * H).fill(255), new Uint8Array(W * H)),
    material: PLAIN_MATERIAL,
    backMm: [100, 100],
    output: { widthPx: W, heightPx: H, format: 'png' },
    ...over,
  };
}

/** Four quadrants: red top-left, green top-right, blue bottom-left, white bottom-right. */
const quadrants = () =>
  sharp({ create: { width: 100, height: 100, channels: 3, background: '#ffffff' } })
    .composite([
      { input: { create: { width: 50, height: 50, channels: 3, background: '#ff0000' } }, left: 0, top: 0 },
      { input: { create: { width: 50, height: 50, channels: 3, background: '#00ff00' } }, left: 50, top: 0 },
      { input: { create: { width: 50, height: 50, channels: 3, background: '#0000ff' } }, left: 0, top: 50 },
    ])
    .png()
    .toBuffer();

const stats = async (img: Buffer, region: { left: number; top: number; width: number; height: number }) => {
  const s = await sharp(await sharp(img).extract(region).png().toBuffer()).stats();
  return { mean: s.channels.slice(0, 3).map((c) => c.mean), stdev: s.channels[0].stdev, max: s.channels[0].max };
};

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
    const clearArt = await sharp({
      create: { width: 50, height: 100, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
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
    const red = await sharp({ create: { width: 400, height: 800, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
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
    const t = await template((x, y) => [(x - 50) / 100, y / 100]);
    const odd = {
      onePixel: await sharp({ create: { width: 1, height: 1, channels: 3, background: '#ff8800' } })
        .png()
        .toBuffer(),
      tiny: await quadrants().then((b) => sharp(b).resize(8, 8, { kernel: 'nearest' }).png().toBuffer()),
      banner: await sharp({ create: { width: 1000, height: 100, channels: 3, background: '#00ff00' } })
        .png()
        .toBuffer(),
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
    const t = await template((x, y) => [(x - 50) / 100, y / 100]);
    const first = await composeRender(t, await quadrants());
    const red = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    const other = await composeRender(t, red);
    assert.ok(near(await pixel(other.media, 140, 80), [255, 0, 0], 3), 'the second artwork, not the first');
    const again = await composeRender(t, await quadrants());
    assert.deepEqual(again.media, first.media, 'byte for byte the same as the first render');
  });
});

describe('render memory between runs of renders', () => {
  it('lets the decoded templates and spare buffers go once renders stop, never during one', async () => {
    const t = { ...(await template((x, y) => [(x - 50) / 100, y / 100])), cacheKey: 'idle-test' };
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
    const { background, uv, layers, ...look } = await template((x, y) => [(x - 50) / 100, y / 100]);
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
    const base = await template((x, y) => [(x - 50) / 100, y / 100]);
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
    const base = await template((x, y) => [(x - 50) / 100, y / 100]);
    const output = { widthPx: 2000, heightPx: 1000, format: 'png' as const };
    const frame = output.widthPx * output.heightPx * 3;
    // A drawing whose box is the middle half of the frame, every pixel of it masked.
    const box = Int32Array.from([500, 0, 1500, 1000]);
    const n = 1000 * 1000;
    const uv = new Uint16Array(n * 3);
    const layers = new Uint8Array(n * 3);
    for (let i = 0; i < n; i++) {
      uv[i * 3] = ((i % 1000) * 65535) / 999;
      uv[i * 3 + 1] = (Math.floor(i / 1000) * 65535) / 999;
      layers[i * 3] = 255;
      layers[i * 3 + 1] = 255;
    }
    const background = new Uint8Array(new SharedArrayBuffer(frame)).fill(0x80);
    const drawing: RawTemplate = { width: 2000, height: 1000, background, box, uv, layers };
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
      scribbled.every((x) => x.buffer !== background.buffer),
      'the held drawing is not a spare',
    );
    assert.deepEqual((await composeRender(t, art)).media, a.media, 'the held decode renders the same');
    for (const x of scribbled) releaseShared(x);
    releaseRenderMemory();
  });

  it('lets a template that leaves the cache give its background to the spares only once no render reads it', async () => {
    releaseRenderMemory();
    const quads = await quadrants();
    const base = await template((x, y) => [(x - 50) / 100, y / 100]);
    const output = { widthPx: 2000, heightPx: 1000, format: 'png' as const };
    const look = (key: string, colour: string) => ({
      ...base,
      background: sharp({ create: { width: W, height: H, channels: 3, background: colour } })
        .png()
        .toBuffer(),
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
    const w = 300;
    const h = 200;
    const box = (f: (x: number, y: number) => number) => {
      const layers = Buffer.alloc(w * h * 3, 0);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          layers[(y * w + x) * 3] = f(x, y);
          layers[(y * w + x) * 3 + 1] = 200; // shading and highlight do not count
          layers[(y * w + x) * 3 + 2] = 90;
        }
      return maskBox(layers, w, h);
    };
    assert.deepEqual(await box((x, y) => (x === 17 && y === 33 ? 1 : 0)), { left: 17, top: 33, width: 1, height: 1 });
    assert.deepEqual(await box((x, y) => (x === w - 1 && y === h - 1 ? 255 : 0)), {
      left: w - 1,
      top: h - 1,
      width: 1,
      height: 1,
    });
    assert.deepEqual(await box((x, y) => ((x === 3 && y === 150) || (x === 250 && y === 4) ? 2 : 0)), {
      left: 3,
      top: 4,
      width: 248,
      height: 147,
    });
    assert.deepEqual(await box((x) => (x >= 50 && x < 150 ? 255 : 0)), { left: 50, top: 0, width: 100, height: h });
    assert.deepEqual(await box(() => 9), { left: 0, top: 0, width: w, height: h });
    assert.deepEqual(await box(() => 0), { left: 0, top: 0, width: 0, height: 0 });
  });

  it('warps a template cut to its mask box exactly as the whole frame, pixel for pixel', async () => {
    // An irregular mask (two blobs and a stray pixel) over random UV, shading, highlight and artwork.
    const w = 61;
    const h = 47;
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const layers = Buffer.alloc(w * h * 3);
    const u = new Uint16Array(w * h);
    const v = new Uint16Array(w * h);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const inside = Math.hypot(x - 20, y - 15) < 9 || Math.hypot(x - 40, y - 30) < 7 || (x === 50 && y === 6);
        layers[i * 3] = inside ? 1 + Math.floor(rnd() * 255) : 0;
        layers[i * 3 + 1] = Math.floor(rnd() * 256);
        layers[i * 3 + 2] = Math.floor(rnd() * 256);
        u[i] = Math.floor(rnd() * 65536);
        v[i] = Math.floor(rnd() * 65536);
      }
    const background = Uint8Array.from({ length: w * h * 3 }, () => Math.floor(rnd() * 256));
    const art = Uint8Array.from({ length: 17 * 23 * 4 }, () => Math.floor(rnd() * 256));
    const box = await maskBox(layers, w, h);
    assert.deepEqual(box, { left: 12, top: 6, width: 39, height: 31 });
    const uvOf = (b: typeof box) => {
      const n = b.width * b.height;
      const out = new Uint16Array(n * 2);
      for (let y = 0; y < b.height; y++)
        for (let x = 0; x < b.width; x++) {
          out[y * b.width + x] = u[(b.top + y) * w + b.left + x];
          out[n + y * b.width + x] = v[(b.top + y) * w + b.left + x];
        }
      return out;
    };
    const warp = (b: typeof box, boxLayers: Uint8Array) => {
      const out = new Uint8Array(w * h * 3);
      warpKernel({
        width: w,
        height: h,
        out,
        background,
        box: b,
        uv: uvOf(b),
        layers: boxLayers,
        art,
        artWidth: 17,
        artHeight: 23,
        backMm: [70, 150],
        grainTex: new Uint8Array(256 * 256).fill(140),
        grainSize: 256,
        params: materialParams({
          baseHex: '#8a5a3b',
          phoneHex: '#222222',
          transparency: 0.3,
          shading: 0.8,
          highlight: 0.5,
          grain: 0.3,
          ink: 0.9,
          magsafeRing: true,
        }),
      });
      return out;
    };
    const whole = warp({ left: 0, top: 0, width: w, height: h }, layers);
    assert.deepEqual(warp(box, cutBox(layers, w, box, 3)), whole);
    assert.notDeepEqual(whole, background, 'the mask shows artwork, not only background');
  });

  it("holds a template's UV map and layers for its mask's box only, and renders as if whole", async (ctx) => {
    releaseRenderMemory();
    // The held bytes add up over three renders: the idle timer must not let them go in between.
    ctx.mock.timers.enable({ apis: ['setTimeout'] });
    const art = await quadrants();
    const t = { ...(await template((x, y) => [(x - 50) / 100, y / 100])), cacheKey: 'box-test' };
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
      layers: await layersPng(W, H, corner, new Uint8Array(W * H).fill(255), new Uint8Array(W * H)),
      cacheKey: 'corner-test',
    });
    const dot = await composeRender(one, art);
    assert.equal(preparedTemplateBytes(), W * H * 3 + 100 * H * 7 + W * H * 3 + 7);
    assert.ok(near(await pixel(dot.media, W - 1, H - 1), [0, 255, 0], 3), 'the one masked pixel shows the artwork');
    assert.ok(near(await pixel(dot.media, W - 2, H - 1), [0, 0, 0], 3));
    // No mask at all: the background, and no UV map held.
    const none = await template(() => [0.75, 0.25], {
      layers: await layersPng(W, H, new Uint8Array(W * H), new Uint8Array(W * H).fill(255), new Uint8Array(W * H)),
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

/**
 * Mockup render scenarios: the service's renderer at 1000 and 2000 px against a bare pipeline in
 * the same run that does the same work with nothing around it (fit the artwork, the same warp
 * kernel called directly on this thread, the same encodes), plus the 1000 px throughput with two
 * renders in flight. `tsx bench/mockups.ts` runs them alone; bench/run.ts includes them.
 */
import { pathToFileURL } from 'node:url';
import sharp, { type Sharp } from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';
import { CASE_TYPES } from '../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../src/modules/catalog/devices.ts';
import { frontalTemplate } from '../src/modules/rendering/frontal.ts';
import {
  type Template,
  type TemplatePictures,
  artworkLayout,
  composeRender,
} from '../src/modules/rendering/renderer.ts';
import { placeArtwork } from '../src/modules/rendering/fit.ts';
import { maskBox } from '../src/modules/rendering/mask-box.ts';
import { materialParams, warpKernel } from '../src/modules/rendering/warp.ts';

export interface MockupRow {
  scenario: string;
  ms: number;
  bareMs: number;
  ratio: number;
  rendersPerSecond?: number;
}

async function artwork(): Promise<Buffer> {
  const noise = await sharp({
    create: {
      width: 1200,
      height: 2400,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
  return noise;
}

/** The bare pipeline: what a render must do at least, with the layers already decoded. */
async function bareRender(t: Template, raw: Awaited<ReturnType<typeof decoded>>, art: Buffer) {
  const { widthPx: W, heightPx: H, format } = t.output;
  const meta = await sharp(art).metadata();
  const f = artworkLayout({ width: meta.width!, height: meta.height! }, t, Math.max(W, H));
  const tex = await (await placeArtwork(sharp(art).ensureAlpha(), f)).raw().toBuffer();
  const out = new Uint8Array(W * H * 3);
  warpKernel({
    width: W,
    height: H,
    out,
    background: raw.bg,
    box: raw.box,
    uv: raw.uv,
    layers: raw.layers,
    art: tex,
    artWidth: f.width,
    artHeight: f.height,
    backMm: t.backMm,
    grainTex: new Uint8Array(256 * 256).fill(160),
    grainSize: 256,
    params: materialParams(t.material),
  });
  const img = () => sharp(Buffer.from(out.buffer), { raw: { width: W, height: H, channels: 3 } });
  const enc = (i: Sharp) =>
    format === 'jpeg'
      ? i.jpeg({ quality: 88 })
      : format === 'webp'
        ? i.webp({ quality: 86, effort: 1 })
        : i.png({ compressionLevel: 4 });
  await enc(img()).toBuffer();
  await enc(img().resize({ width: 256 })).toBuffer();
  const th = await img().resize(100, 100, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  rgbaToThumbHash(th.info.width, th.info.height, th.data);
}

async function decoded(t: Template & TemplatePictures) {
  const { widthPx: W, heightPx: H } = t.output;
  const bg = await sharp(t.background).resize(W, H).removeAlpha().raw().toBuffer();
  const layers = () => sharp(t.layers).resize(W, H).removeAlpha();
  // The UV map and the layers for the mask's box alone, u then v, as the service's renderer holds them.
  const box = await maskBox(await layers().raw().toBuffer(), W, H);
  const plane = (band: 0 | 1) =>
    sharp(t.uv)
      .toColourspace('rgb16')
      .removeAlpha()
      .extractChannel(band)
      .resize(W, H, { kernel: 'linear' })
      .extract(box)
      .raw({ depth: 'ushort' })
      .toBuffer();
  const n = box.width * box.height;
  const uv = new Uint16Array(n * 2);
  const bytes = new Uint8Array(uv.buffer);
  bytes.set(await plane(0), 0);
  bytes.set(await plane(1), n * 2);
  return { bg, box, uv, layers: await layers().extract(box).raw().toBuffer() };
}

export async function mockupScenarios(runs = 12): Promise<MockupRow[]> {
  const device = loadDevices().find((d) => d.key === 'iphone-17-pro')!;
  const art = await artwork();
  const rows: MockupRow[] = [];
  for (const edge of [1000, 2000]) {
    const parts = await frontalTemplate(device, CASE_TYPES.leather, { width: edge, height: edge });
    const t: Template = {
      ...parts,
      output: { widthPx: edge, heightPx: edge, format: 'webp' },
      cacheKey: `bench-${edge}`,
    };
    const raw = await decoded(t);
    await composeRender(t, art); // warm-up: the template's layers are decoded once and cached
    await bareRender(t, raw, art);
    let ours = 0;
    let bare = 0;
    // Alternating, so that load on the machine hits both alike.
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await composeRender(t, art);
      const t1 = performance.now();
      await bareRender(t, raw, art);
      ours += t1 - t0;
      bare += performance.now() - t1;
    }
    const row: MockupRow = {
      scenario: `render ${edge} px (WebP)`,
      ms: Math.round(ours / runs),
      bareMs: Math.round(bare / runs),
      ratio: Number((ours / bare).toFixed(2)),
    };
    if (edge === 1000) {
      // Throughput: two renders in flight (the warp pool has two threads), for a fixed count.
      const n = runs * 2;
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        [0, 1].map(async () => {
          while (next++ < n) await composeRender(t, art);
        }),
      );
      row.rendersPerSecond = Number((n / ((performance.now() - t0) / 1000)).toFixed(1));
    }
    rows.push(row);
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await mockupScenarios(Number(process.env.BENCH_RENDER_RUNS ?? 12));
  console.table(rows);
  process.exit(0);
}

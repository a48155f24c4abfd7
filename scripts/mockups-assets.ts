/**
 * `npm run mockups:assets`: regenerates every 3D scene asset. Blender (Debian's `blender`, run in
 * background mode) renders the passes of each scene, view and flagship model; this script turns
 * them into the committed templates under assets/mockups/ (background.webp, uv.png 16-bit,
 * layers.png = mask/shading/highlight, template.json) and writes assets/mockups/index.json.
 * Neither npm start nor the tests need Blender: they read the committed files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { CASE_TYPES } from '../src/modules/catalog/casetypes.ts';
import { caseOutline } from '../src/modules/catalog/geometry.ts';
import { MOCKUP_ASSETS } from '../src/modules/rendering/generated.ts';
import { phoneColour } from '../src/modules/rendering/materials.ts';
import { type BakedScene, flagships } from '../src/modules/rendering/scenes.ts';

const SIZE = Number(process.env.MOCKUP_SIZE ?? 1000);
const SAMPLES = Number(process.env.MOCKUP_SAMPLES ?? 24);
/** The geometry is baked for the middle wall; the case types differ in material, not in shape. */
const CASE = CASE_TYPES.magsafe;

const VIEWS = {
  left: { name: 'Angled from the left', elevation: 52, azimuth: -28, distance: 3.0 },
  right: { name: 'Angled from the right', elevation: 40, azimuth: 32, distance: 2.9 },
};
/**
 * Exposure: the linear level the scene's surroundings are brought to. The light scenes sit near
 * white (0.7 is sRGB 219) with the shoulder of `tone` keeping the key's hot spot from clipping.
 */
const EXPOSURE: Record<string, number> = { studio: 0.76, desk: 0.34, marble: 0.72 };
/** Linear up to the knee, then an exponential shoulder that approaches white without reaching it. */
const KNEE = 0.78;
export const tone = (e: number) => (e <= KNEE ? e : KNEE + (1 - KNEE) * (1 - Math.exp(-(e - KNEE) / (1 - KNEE))));
const SCENES: Array<Omit<BakedScene, 'views' | 'devices'>> = [
  {
    key: 'studio',
    name: 'Studio',
    description: 'The case on a warm white seamless sweep with studio props, soft key light.',
  },
  {
    key: 'desk',
    name: 'Wooden desk',
    description: 'The case on an oak desk beside a mug, a notebook and a pencil, warm light.',
  },
  { key: 'marble', name: 'Marble flat lay', description: 'The case on white marble with a succulent and a gold ring.' },
];

const srgb = (x: number) => (x <= 0.0031308 ? 12.92 * x : 1.055 * x ** (1 / 2.4) - 0.055);

async function read16(file: string) {
  const { data, info } = await sharp(file)
    .toColourspace('rgb16')
    .raw({ depth: 'ushort' })
    .toBuffer({ resolveWithObject: true });
  return { px: new Uint16Array(data.buffer, data.byteOffset, data.length / 2), ...info };
}

/**
 * Keeps the shading and highlight only on and just around the case (R, the mask, says where):
 * elsewhere the compositor never reads them, and the scene's light left there would triple the
 * PNG's size. The 4 px margin covers the resampling when the output size differs.
 */
export function trimLayers(layers: Buffer, W: number, H: number, margin = 4) {
  const near = new Uint8Array(W * H);
  for (let i = 0; i < W * H; i++) near[i] = layers[i * 3] > 0 ? 1 : 0;
  for (let pass = 0; pass < margin; pass++) {
    const grown = near.slice();
    for (let y = 1; y < H - 1; y++)
      for (let x = 1; x < W - 1; x++) {
        const i = y * W + x;
        if (!near[i] && (near[i - 1] || near[i + 1] || near[i - W] || near[i + W])) grown[i] = 1;
      }
    near.set(grown);
  }
  for (let i = 0; i < W * H; i++) if (!near[i]) layers[i * 3 + 1] = layers[i * 3 + 2] = 0;
}

/** Turns one bake's linear passes into the template files. */
export async function finish(src: string, dst: string, backMm: [number, number], level = 0.3) {
  const image = await read16(join(src, 'image_0001.png'));
  const uv = await read16(join(src, 'uv_0001.png'));
  const diff = await read16(join(src, 'diffuse_0001.png'));
  const gloss = await read16(join(src, 'glossy_0001.png'));
  const mask = await read16(join(src, 'mask_0001.png'));
  const { width: W, height: H } = image;
  const n = W * H;
  const c = image.channels;
  const m = new Uint8Array(n);
  for (let i = 0; i < n; i++) m[i] = Math.round(mask.px[i * mask.channels] / 257);
  // The shading is the diffuse light relative to the case's well-lit part (its 95th percentile).
  const lum = (p: Uint16Array, i: number, ch: number) => (p[i * ch] + p[i * ch + 1] + p[i * ch + 2]) / 3 / 65535;
  const lit: number[] = [];
  for (let i = 0; i < n; i += 7) if (m[i] > 250) lit.push(lum(diff.px, i, diff.channels));
  lit.sort((a, b) => a - b);
  const ref = lit[Math.floor(lit.length * 0.95)] || 1;
  // Exposure: the scene's surroundings (outside the case) at the scene's level, highlights rolled
  // off instead of clipped, so every scene and model comes out alike without hand tuning.
  const around: number[] = [];
  for (let i = 0; i < n; i += 11) if (m[i] === 0) around.push(lum(image.px, i, c));
  around.sort((a, b) => a - b);
  const exposure = level / (around[Math.floor(around.length * 0.6)] || level);
  const bg = Buffer.alloc(n * 3);
  const layers = Buffer.alloc(n * 3);
  const uvOut = new Uint16Array(n * 3);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++)
      bg[i * 3 + k] = Math.round(255 * Math.min(1, srgb(tone((exposure * image.px[i * c + k]) / 65535))));
    layers[i * 3] = m[i];
    layers[i * 3 + 1] = Math.round(255 * Math.min(1, srgb(Math.min(1, lum(diff.px, i, diff.channels) / ref))));
    layers[i * 3 + 2] = Math.round(
      255 * Math.min(1, srgb(Math.min(1, (0.6 * lum(gloss.px, i, gloss.channels)) / ref))),
    );
    uvOut[i * 3] = uv.px[i * uv.channels];
    uvOut[i * 3 + 1] = uv.px[i * uv.channels + 1];
  }
  // Grow the UV map a few pixels past the mask so resampling at the edge never reads "no surface".
  for (let pass = 0; pass < 3; pass++) {
    const has = (i: number) => uvOut[i * 3] !== 0 || uvOut[i * 3 + 1] !== 0;
    const copy = uvOut.slice();
    for (let y = 1; y < H - 1; y++)
      for (let x = 1; x < W - 1; x++) {
        const i = y * W + x;
        if (has(i)) continue;
        for (const j of [i - 1, i + 1, i - W, i + W])
          if (has(j)) {
            copy[i * 3] = uvOut[j * 3];
            copy[i * 3 + 1] = uvOut[j * 3 + 1];
            break;
          }
      }
    uvOut.set(copy);
  }
  mkdirSync(dst, { recursive: true });
  // Denoising is off in Cycles; a 3x3 median takes the sampling speckle out of the plate.
  await sharp(bg, { raw: { width: W, height: H, channels: 3 } })
    .median(3)
    .webp({ quality: 82, effort: 6 })
    .toFile(join(dst, 'background.webp'));
  // 16 samples leave grain in the light passes; a light blur removes it (the mask stays sharp).
  const smooth = await sharp(layers, { raw: { width: W, height: H, channels: 3 } })
    .blur(1.2)
    .raw()
    .toBuffer();
  for (let i = 0; i < n; i++) smooth[i * 3] = m[i];
  trimLayers(smooth, W, H);
  await sharp(smooth, { raw: { width: W, height: H, channels: 3 } })
    .png({ compressionLevel: 9 })
    .toFile(join(dst, 'layers.png'));
  await sharp(uvOut, { raw: { width: W, height: H, channels: 3 } })
    .toColourspace('rgb16')
    .png({ compressionLevel: 9 })
    .toFile(join(dst, 'uv.png'));
  writeFileSync(join(dst, 'template.json'), `${JSON.stringify({ backMm })}\n`);
}

async function main() {
  // MOCKUP_DEVICES=a-b bakes a slice of the models (the index lists what is on disk).
  const [from, to] = (process.env.MOCKUP_DEVICES ?? '0-10').split('-').map(Number);
  const all = flagships();
  const devices = all.slice(from, to);
  const only = process.argv[2]; // e.g. "desk" to re-bake one scene
  const scenes = SCENES.filter((s) => !only || s.key === only);
  // MOCKUP_VIEWS=left bakes some views only (quick previews).
  const views = Object.entries(VIEWS).filter(([k]) => (process.env.MOCKUP_VIEWS ?? k).split(',').includes(k));
  const work = mkdtempSync(join(tmpdir(), 'mockups-'));
  const job = {
    samples: SAMPLES,
    size: SIZE,
    caseType: { wallMm: CASE.wallMm },
    scenes: scenes.map((s) => ({ key: s.key, views: views.map(([key, v]) => ({ key, ...v })) })),
    devices: devices.map((d) => ({ ...d, phoneHex: phoneColour(d) })),
  };
  writeFileSync(join(work, 'job.json'), JSON.stringify(job));
  const run = spawnSync(
    'nice',
    [
      '-n',
      process.env.MOCKUP_NICE ?? '10',
      'blender',
      '-b',
      '--factory-startup',
      '-P',
      join(import.meta.dirname, 'mockups', 'bake.py'),
      '--',
      join(work, 'job.json'),
      work,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (run.status !== 0) throw new Error(`blender failed (${run.status ?? run.error})`);
  for (const s of scenes)
    for (const [view] of views)
      for (const d of devices) {
        const o = caseOutline(d, CASE);
        await finish(
          join(work, s.key, view, d.key),
          join(MOCKUP_ASSETS, s.key, view, d.key),
          [o.widthMm, o.heightMm],
          EXPOSURE[s.key],
        );
      }
  // Only what is on disk for every view (a run may re-bake one scene).
  const baked = (s: { key: string }, d: { key: string }) =>
    Object.keys(VIEWS).every((v) => existsSync(join(MOCKUP_ASSETS, s.key, v, d.key, 'template.json')));
  const index: { scenes: BakedScene[] } = {
    scenes: SCENES.filter((s) => all.some((d) => baked(s, d))).map((s) => ({
      ...s,
      views: Object.entries(VIEWS).map(([key, v]) => ({
        key,
        name: `${s.name}, ${v.name.toLowerCase()}`,
        output: { widthPx: SIZE, heightPx: SIZE, format: 'webp' as const },
      })),
      devices: all.filter((d) => baked(s, d)).map((d) => d.key),
    })),
  };
  writeFileSync(join(MOCKUP_ASSETS, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  if (!process.env.MOCKUP_KEEP) rmSync(work, { recursive: true, force: true });
}

// Run as a command, not when imported (the contact sheet and checks reuse `finish`).
if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();

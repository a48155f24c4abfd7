import sharp from 'sharp';
import { maskBox } from '../../src/modules/rendering/mask-box.ts';
import type { RawTemplate } from '../../src/modules/rendering/raw-template.ts';
import type { Template, TemplatePictures } from '../../src/modules/rendering/renderer.ts';
import { PLAIN_MATERIAL } from '../../src/modules/rendering/templates.ts';
import { materialParams, warpKernel } from '../../src/modules/rendering/warp.ts';
import { layersPng, uvPng } from './pixels.ts';

// Templates, artwork and raw kernel inputs of compositor.test.ts: no app, no database.

export const W = 200;
export const H = 100;

/** A PNG of one colour (with `channels: 4` and an alpha in `background`, a transparent one). */
export const solidPng = (
  width: number,
  height: number,
  background: string | { r: number; g: number; b: number; alpha: number },
  channels: 3 | 4 = 3,
) => sharp({ create: { width, height, channels, background } }).png().toBuffer();

/** W x H layers: `mask`, full light and no highlight. */
export const maskLayers = (mask: Uint8Array) =>
  layersPng(W, H, mask, new Uint8Array(W * H).fill(255), new Uint8Array(W * H));

/** A template whose UV map is `fn(x, y)` everywhere and whose mask covers x in [50, 150). */
export async function template(
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
    background: await solidPng(W, H, '#000000'),
    uv: await uvPng(W, H, uv),
    layers: await maskLayers(mask),
    material: PLAIN_MATERIAL,
    backMm: [100, 100],
    output: { widthPx: W, heightPx: H, format: 'png' },
    ...over,
  };
}

/** The UV map that lays the artwork once across the mask: u from 0 at x = 50 to 1 at x = 150. */
export const across = (x: number, y: number): [number, number] => [(x - 50) / 100, y / 100];

/** Four quadrants: red top-left, green top-right, blue bottom-left, white bottom-right. */
export const quadrants = () =>
  sharp({ create: { width: 100, height: 100, channels: 3, background: '#ffffff' } })
    .composite([
      { input: { create: { width: 50, height: 50, channels: 3, background: '#ff0000' } }, left: 0, top: 0 },
      { input: { create: { width: 50, height: 50, channels: 3, background: '#00ff00' } }, left: 50, top: 0 },
      { input: { create: { width: 50, height: 50, channels: 3, background: '#0000ff' } }, left: 0, top: 50 },
    ])
    .png()
    .toBuffer();

/** Mean RGB, and the red channel's spread and most, of a region of an image. */
export const stats = async (img: Buffer, region: { left: number; top: number; width: number; height: number }) => {
  const s = await sharp(await sharp(img).extract(region).png().toBuffer()).stats();
  return { mean: s.channels.slice(0, 3).map((c) => c.mean), stdev: s.channels[0].stdev, max: s.channels[0].max };
};

/** A 2000 x 1000 grey drawing whose box is the middle half of the frame, every pixel of it masked. */
export function halfFrameDrawing(): RawTemplate {
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
  const background = new Uint8Array(new SharedArrayBuffer(2000 * 1000 * 3)).fill(0x80);
  return { width: 2000, height: 1000, background, box, uv, layers };
}

/** The mask's box of a 300 x 200 frame whose mask is `f(x, y)`, with shading and highlight set. */
export function maskBoxOf(f: (x: number, y: number) => number) {
  const w = 300;
  const h = 200;
  const layers = Buffer.alloc(w * h * 3, 0);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      layers[(y * w + x) * 3] = f(x, y);
      layers[(y * w + x) * 3 + 1] = 200; // shading and highlight do not count
      layers[(y * w + x) * 3 + 2] = 90;
    }
  return maskBox(layers, w, h);
}

type Box = { left: number; top: number; width: number; height: number };

/**
 * A 61 x 47 frame with an irregular mask (two blobs and a stray pixel) over random UV, shading,
 * highlight and artwork (seeded), and `warp`: the kernel over a box of it, given that box's layers.
 */
export function randomWarpFrame() {
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
  const uvOf = (b: Box) => {
    const n = b.width * b.height;
    const out = new Uint16Array(n * 2);
    for (let y = 0; y < b.height; y++)
      for (let x = 0; x < b.width; x++) {
        out[y * b.width + x] = u[(b.top + y) * w + b.left + x];
        out[n + y * b.width + x] = v[(b.top + y) * w + b.left + x];
      }
    return out;
  };
  const warp = (b: Box, boxLayers: Uint8Array) => {
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
  return { w, h, layers, background, warp };
}

import sharp from 'sharp';
import { rgbPng, uv16Png } from '../../src/modules/rendering/templates.ts';

// Pixel helpers without an app or a database: pure pixel tests import them from here.

/** RGB of one pixel of a decoded image. */
export async function pixel(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

export const near = (a: number[], b: number[], tolerance: number) => a.every((v, i) => Math.abs(v - b[i]) <= tolerance);

/** u, v (0..1 floats, 2 per pixel) → 16-bit RGB PNG (R = u, G = v, B = 0). */
export async function uvPng(width: number, height: number, uv: Float32Array): Promise<Buffer> {
  const data = new Uint16Array(width * height * 3);
  for (let i = 0, j = 0; i < width * height; i++, j += 2) {
    data[i * 3] = Math.round(Math.min(1, Math.max(0, uv[j])) * 65535);
    data[i * 3 + 1] = Math.round(Math.min(1, Math.max(0, uv[j + 1])) * 65535);
  }
  return uv16Png(width, height, data);
}

/** mask, shading, highlight (one byte each per pixel) → one RGB PNG. */
export async function layersPng(
  width: number,
  height: number,
  mask: Uint8Array,
  shading: Uint8Array,
  highlight: Uint8Array,
) {
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    data[i * 3] = mask[i];
    data[i * 3 + 1] = shading[i];
    data[i * 3 + 2] = highlight[i];
  }
  return rgbPng(width, height, data);
}

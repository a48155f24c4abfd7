import sharp from 'sharp';
import { rgbPng, uv16Png } from '../../src/modules/rendering/templates.ts';
import { type TestApp, call } from '../support/app.ts';

/** A solid-colour PNG, uploaded as the partner's image. */
export async function uploadSolid(
  t: TestApp,
  color: { r: number; g: number; b: number },
  key = t.key,
  size = { width: 400, height: 700 },
) {
  const bytes = await sharp({ create: { ...size, channels: 3, background: color } })
    .png()
    .toBuffer();
  const res = await call(t, 'POST', '/v2/images', {
    key,
    payload: bytes,
    headers: { 'content-type': 'application/octet-stream' },
  });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.data.image.reference as string;
}

export function seeded(t: TestApp) {
  const r = t.seed.rendering!;
  const products = t.seed.organizations[0].products!;
  const product = (name: string) => products.find((p) => p.name === name)!.reference;
  return {
    studio: r.scenes['demo-studio'],
    marble: r.scenes['demo-marble'],
    front: r.scenes['catalog-front'],
    studioFront: r.perspectives['demo-studio-front'],
    marbleTop: r.perspectives['demo-marble-top'],
    closeup: r.perspectives['demo-ip15-closeup'],
    frontSquare: r.perspectives['catalog-front-square'],
    cStudioIp15: r.compositions['demo-studio-ip15'],
    cStudioS24: r.compositions['demo-studio-s24'],
    cCloseup: r.compositions['demo-studio-ip15-closeup'],
    cRetired: r.compositions['demo-studio-ip15-black'],
    cMarbleIp15: r.compositions['demo-marble-ip15'],
    cMarbleLeather: r.compositions['demo-marble-leather'],
    ip15: product('iPhone 15 Clear Case'),
    ip15black: product('iPhone 14 Clear Case'),
    s24: product('Galaxy S24 Clear Case'),
    leather: product('Demo Walnut Leather Case iPhone 15'),
    protector: product('iPhone 15 Tempered Glass Screen Protector'),
  };
}

/** RGB of one pixel of a decoded image. */
export async function pixel(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

export const near = (a: number[], b: number[], tolerance: number) => a.every((v, i) => Math.abs(v - b[i]) <= tolerance);

export async function createRender(t: TestApp, compositionReference: string, imageReference: string, key = t.key) {
  return call(t, 'POST', '/v2/renders', { key, body: { render: { compositionReference, imageReference } } });
}

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

import sharp from 'sharp';
import { type TestApp, call } from '../support/app.ts';

export { layersPng, near, pixel, uvPng } from './pixels.ts';

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

export async function createRender(t: TestApp, compositionReference: string, imageReference: string, key = t.key) {
  return call(t, 'POST', '/v2/renders', { key, body: { render: { compositionReference, imageReference } } });
}

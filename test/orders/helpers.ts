import assert from 'node:assert/strict';
import sharp from 'sharp';
import { type TestApp, call } from '../support/app.ts';

export const ADDRESS = {
  firstname: 'Anna',
  lastname: 'Jansen',
  streetname: 'Prinsengracht',
  housenumber: '263',
  zipcode: '1016 GV',
  city: 'Amsterdam',
  countryCode: 'NL',
  email: 'anna@example.com',
  phonenumber: '+31 20 555 0101',
};

export function product(t: TestApp, name: string, org = 0): string {
  const p = t.seed.organizations[org].products?.find((x) => x.name === name);
  assert.ok(p, `seed product ${name} of organization ${org}`);
  return p.reference;
}

export const products = (t: TestApp) => ({
  clear: product(t, 'iPhone 15 Clear Case'),
  sunsetted: product(t, 'iPhone 14 Clear Case'),
  prelaunched: product(t, 'Galaxy S27 Clear Case'),
  announced: product(t, 'iPhone 18 Clear Case'),
  ended: product(t, 'iPhone 12 Clear Case'),
  archived: product(t, 'iPhone 11 Clear Case'),
  protector: product(t, 'iPhone 15 Tempered Glass Screen Protector'),
  leather: product(t, 'Demo Walnut Leather Case iPhone 15'),
});

export const store = (t: TestApp, code: string) => {
  for (const o of t.seed.organizations) {
    const s = o.stores.find((x) => x.code === code);
    if (s) return s.reference;
  }
  throw new Error(`no store ${code}`);
};

let shade = 0;
/** A fresh PNG uploaded through the API (a new colour each time, so a new image). */
export async function uploadImage(t: TestApp, key = t.key): Promise<string> {
  shade = (shade + 37) % 256;
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: shade, g: 120, b: 200 } } })
    .png()
    .toBuffer();
  const res = await call(t, 'POST', '/v2/images', {
    key,
    payload: png,
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.image.reference;
}

/** A valid dropship order body; `patch` is merged into `order`. */
export function orderBody(t: TestApp, image: string, patch: Record<string, unknown> = {}) {
  return {
    order: {
      storeReference: store(t, 'DEMO1'),
      shippingKind: 'dropship',
      dropshipAddress: ADDRESS,
      orderlines: [{ productReference: products(t).clear, imageReference: image, quantity: 2 }],
      ...patch,
    },
  };
}

export async function createOrder(t: TestApp, body: unknown, key = t.key): Promise<string> {
  const res = await call(t, 'POST', '/v2/orders', { key, body });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.order.reference;
}

export async function getOrder(t: TestApp, ref: string) {
  const res = await call(t, 'GET', `/v2/orders/${ref}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.data.order;
}

export function expectError(
  res: { statusCode: number; data: any; body: string },
  status: number,
  code: string,
  messagePart?: string,
) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.data.code, code, res.body);
  if (messagePart)
    assert.ok(res.data.message.includes(messagePart), `message "${res.data.message}" should mention ${messagePart}`);
}

export async function startProduction(t: TestApp, ref: string) {
  const res = await call(t, 'POST', `/v2/test-helpers/orders/${ref}/start-production`);
  assert.equal(res.statusCode, 204, res.body);
}

export async function ship(t: TestApp, refs: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call(t, 'POST', '/v2/test-helpers/shipments', {
    body: { shipment: { orderReferences: refs, ...extra } },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.shipment.reference;
}

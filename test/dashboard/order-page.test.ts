import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import {
  ADDRESS,
  createOrder,
  orderBody,
  products,
  ship,
  startProduction,
  store,
  uploadImage,
} from '../orders/helpers.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import { type Agent, OTHER_PARTNER, signedIn, textOf } from './helpers.ts';

describe('partner order page', () => {
  let t: TestApp;
  let a: Agent;
  before(async () => {
    t = await createTestApp();
    a = await signedIn(t);
  });
  after(() => t.close());

  it('shows products, artwork, the address, the shipment with tracking events and a timeline', async () => {
    const image = await uploadImage(t);
    const p = products(t);
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        dropshipMinimalShippingLevel: 'tracked',
        orderlines: [
          { productReference: p.clear, imageReference: image, quantity: 3 },
          { productReference: p.protector, quantity: 2 },
        ],
      }),
    );
    let body = (await a.get(`/dashboard/orders/${ref}`)).body;
    let text = textOf(body);
    assert.match(text, /Not shipped yet/);
    assert.match(text, /Created/);
    const moved = await call(t, 'PUT', `/v2/orders/${ref}/dropship-address`, {
      body: { dropshipAddress: { ...ADDRESS, city: 'Zwolle <b>' } },
    });
    assert.ok(moved.statusCode < 300, moved.body);
    const canceled = await call(t, 'POST', `/v2/orders/${ref}/cancel`, {
      body: { orderlines: [{ index: 2, canceledQuantity: 1 }] },
    });
    assert.ok(canceled.statusCode < 300, canceled.body);
    await startProduction(t, ref);
    const shipment = await ship(t, [ref]);
    const tracked = await call(t, 'POST', `/v2/test-helpers/shipments/${shipment}/tracking-events`, {
      body: { trackingEvent: { status: 'in_transit', location: 'Utrecht hub', description: 'Sorted' } },
    });
    assert.equal(tracked.statusCode, 200, tracked.body);

    const res = await a.get(`/dashboard/orders/${ref}`);
    assert.equal(res.statusCode, 200);
    body = res.body;
    text = textOf(body);
    const product = (await call(t, 'GET', `/v2/products/${p.clear}`)).data.product;
    assert.ok(text.includes(product.name), 'the product name, not only its reference');
    assert.match(body, new RegExp(`/dashboard/images/${image}/thumbnail`));
    assert.match(text, /Dropship address/);
    assert.match(text, /Zwolle &lt;b&gt;|Zwolle <b>/);
    assert.doesNotMatch(body, /Zwolle <b>/, 'escaped');
    assert.match(text, /Open the tracking page/);
    assert.match(text, /in transit/);
    assert.match(text, /Utrecht hub/);
    assert.match(text, /Address changed/);
    assert.match(text, /Line 2: 1 canceled/);
    assert.match(text, /Status: in production/);
    assert.match(text, /Shipped/);
    const media = product.media[0];
    if (media) {
      const pic = await a.get(`/dashboard/products/${p.clear}/media/${media.filename}`);
      assert.equal(pic.statusCode, 200);
    }
    const other = await signedIn(t, OTHER_PARTNER);
    assert.equal((await other.get(`/dashboard/orders/${ref}`)).statusCode, 404);
  });

  it('shows each webhook delivery with its attempts and the store callback with its last error', async () => {
    const hooks = await startReceiver(() => 204);
    const shop = await startReceiver(() => 503);
    try {
      const storeRef = store(t, 'DEMO1');
      const st = (await call(t, 'GET', `/v2/stores/${storeRef}`)).data.store;
      const saved = await a.submit(
        `/dashboard/stores/${storeRef}`,
        {
          name: st.name,
          integration: st.integration,
          defaultBrandReference: st.defaultBrandReference ?? '',
          callbackUrl: shop.url,
          ...ADDRESS,
        },
        `/dashboard/stores/${storeRef}`,
      );
      assert.equal(saved.statusCode, 303, saved.body);
      const ep = await call(t, 'POST', '/v2/webhook-endpoints', {
        body: { webhookEndpoint: { url: hooks.url, eventTypes: ['order.created', 'order.updated'] } },
      });
      assert.equal(ep.statusCode, 200, ep.body);
      const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
      await startProduction(t, ref);
      await t.s.worker.drain();
      assert.ok(hooks.received.length >= 1, 'the webhook was delivered');
      assert.ok(shop.received.length >= 1, 'the store was called back');
      const text = textOf((await a.get(`/dashboard/orders/${ref}`)).body);
      assert.match(
        text,
        /Created Webhook http:\/\/127\.0\.0\.1:\d+\/hooks\?source=test succeeded 1 attempt \S+ \S+ UTC: HTTP 204/,
      );
      assert.match(text, /Status: in production Webhook \S+ succeeded 1 attempt/);
      assert.match(text, /Callback to the store retrying \d+ attempts?; last error: [^.]*503/);
    } finally {
      await hooks.close();
      await shop.close();
    }
  });

  it('draws a device product that has no pictures, for organizations that may see it', async () => {
    const [device] = await t.s.db.query<{ id: string; name: string }>(
      `SELECT p.id, p.name FROM products p JOIN productgroups g ON g.id = p.productgroup_id
        WHERE p.device_key IS NOT NULL AND g.private_organization_id IS NULL AND p.status = 'launched'
          AND NOT EXISTS (SELECT 1 FROM product_media m WHERE m.product_id = p.id) ORDER BY p.seq LIMIT 1`,
    );
    assert.ok(device, 'a device product without media in the demo catalog');
    const svg = await a.get(`/dashboard/products/${device.id}/picture.svg`);
    assert.equal(svg.statusCode, 200);
    assert.match(String(svg.headers['content-type']), /^image\/svg\+xml/);
    assert.ok(svg.body.includes(`<title>${device.name}</title>`));
    const [accessory] = await t.s.db.query<{ id: string }>(
      "SELECT id FROM products WHERE device_key IS NULL AND status = 'launched' ORDER BY seq LIMIT 1",
    );
    assert.equal((await a.get(`/dashboard/products/${accessory.id}/picture.svg`)).statusCode, 404, 'no device');
    assert.equal((await a.get('/dashboard/products/Product_nope/picture.svg')).statusCode, 404);
  });
});

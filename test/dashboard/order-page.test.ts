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

/** Sets (or with '' clears) a store's callback URL through the store form, as a partner would. */
async function setCallbackUrl(a: Agent, storeRef: string, callbackUrl: string) {
  const st = (await call(a.t, 'GET', `/v2/stores/${storeRef}`)).data.store;
  const saved = await a.submit(
    `/dashboard/stores/${storeRef}`,
    {
      name: st.name,
      integration: st.integration,
      defaultBrandReference: st.defaultBrandReference ?? '',
      callbackUrl,
      ...ADDRESS,
    },
    `/dashboard/stores/${storeRef}`,
  );
  assert.equal(saved.statusCode, 303, saved.body);
}

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
    assert.ok(
      body.includes(`<a href="/dashboard/products/${p.clear}?from=%2Fdashboard%2Forders%2F${ref}">`),
      "the name links the product's page, which leads back to the order",
    );
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

  it("leads back from a product's page to the order it was opened from, else to all orders, named as such", async () => {
    const p = products(t);
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    const { legacyOrderCode } = await t.s.orders.get(t.seed.organizations[0].reference, ref);
    const orderPage = (await a.get(`/dashboard/orders/${ref}`)).body;
    const link = new RegExp(`<a href="(/dashboard/products/${p.clear}\\?from=[^"]+)">`).exec(orderPage);
    assert.ok(link, "the order page links the product's page");
    const opened = await a.get(link[1]);
    assert.equal(opened.statusCode, 200, opened.body);
    const back = `<a href="/dashboard/orders/${ref}">Back to order ${legacyOrderCode}</a>`;
    assert.ok(opened.body.includes(back), `${textOf(opened.body).slice(0, 300)}: back to the order`);
    assert.doesNotMatch(textOf(opened.body), /All orders/);

    const allOrders = '<a href="/dashboard/orders">All orders</a>';
    const other = await signedIn(t, OTHER_PARTNER);
    for (const [agent, from] of [
      [a, null],
      [a, 'https://evil.example/dashboard/orders/x'],
      [a, '//evil.example'],
      [a, `/dashboard/orders/${ref}/../../../console`],
      [a, '/dashboard/orders/Order_nope'],
      [a, `/dashboard/claims/${ref}`],
      [other, `/dashboard/orders/${ref}`],
    ] as const) {
      const url = `/dashboard/products/${p.clear}${from === null ? '' : `?from=${encodeURIComponent(from)}`}`;
      const res = await agent.get(url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.ok(res.body.includes(allOrders), `${url}: the orders, named as such`);
      assert.doesNotMatch(res.body, /Back to order|evil\.example/, url);
    }
  });

  it('shows each webhook delivery and each store callback attempt with its outcome', async () => {
    const hooks = await startReceiver(() => 204);
    const shop = await startReceiver(() => 503);
    const storeRef = store(t, 'DEMO1');
    try {
      await setCallbackUrl(a, storeRef, shop.url);
      const ep = await call(t, 'POST', '/v2/webhook-endpoints', {
        body: { webhookEndpoint: { url: hooks.url, eventTypes: ['order.created', 'order.updated'] } },
      });
      assert.equal(ep.statusCode, 200, ep.body);
      const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
      await startProduction(t, ref);
      await t.s.worker.drain();
      assert.ok(hooks.received.length >= 1, 'the webhook was delivered');
      assert.equal(shop.received.length, 1, 'the store was called back once');
      let text = textOf((await a.get(`/dashboard/orders/${ref}`)).body);
      assert.match(
        text,
        /Created Webhook http:\/\/127\.0\.0\.1:\d+\/hooks\?source=test succeeded 1 attempt \S+ \S+ UTC: HTTP 204/,
      );
      assert.match(text, /Status: in production Webhook \S+ succeeded 1 attempt/);
      assert.match(text, /Callback to the store, attempt 1 HTTP 503 the callback URL answered HTTP 503 · \d+ ms/);
      assert.match(text, /Callback to the store retrying next attempt; 1 attempt failed so far/);

      // Each retry is a step of its own; the last one got through.
      t.clock.advance(300_000);
      await t.s.worker.drain();
      shop.set(() => 204);
      t.clock.advance(300_000);
      await t.s.worker.drain();
      assert.equal(shop.received.length, 3);
      const body = (await a.get(`/dashboard/orders/${ref}`)).body;
      text = textOf(body);
      assert.equal(text.match(/Callback to the store, attempt \d/g)?.length, 3, text);
      assert.match(text, /attempt 1 HTTP 503 .*attempt 2 HTTP 503 .*attempt 3 HTTP 204 \d+ ms/);
      assert.doesNotMatch(text, /retrying/, 'delivered: no next attempt');
      assert.equal(body.match(/<li class="bad">/g)?.length, 2, 'failed attempts are red');
      assert.equal(body.match(/<li class="ok">/g)?.length, 1, 'the delivered one is green');
    } finally {
      await setCallbackUrl(a, storeRef, '');
      await hooks.close();
      await shop.close();
    }
  });

  it('says why an attempt got no answer, without the query of the URL', async () => {
    const gone = await startReceiver();
    await gone.close();
    const storeRef = store(t, 'DEMO1');
    try {
      await setCallbackUrl(a, storeRef, `${gone.url}&token=s3cret-token`);
      const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
      await startProduction(t, ref);
      await t.s.worker.drain();
      const body = (await a.get(`/dashboard/orders/${ref}`)).body;
      assert.match(
        textOf(body),
        /Callback to the store, attempt 1 no answer could not connect to the callback URL · \d+ ms/,
      );
      assert.ok(!body.includes('s3cret-token'));
      const [row] = await t.db.query<{ error: string; response_status: number | null }>(
        'SELECT error, response_status FROM callback_attempts WHERE order_id = $1',
        [ref],
      );
      assert.deepEqual(row, { error: 'could not connect to the callback URL', response_status: null });
    } finally {
      await setCallbackUrl(a, storeRef, '');
    }
  });

  it('says so when nothing but the creation is known', async () => {
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    const text = textOf((await a.get(`/dashboard/orders/${ref}`)).body);
    assert.match(text, /Timeline \S+ \S+ UTC Created .*Nothing else has happened to this order yet/);
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

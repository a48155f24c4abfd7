import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { ShopifyStandIn } from '../support/shopify-standin.ts';
import { createLogger } from '../../src/runtime.ts';
import { redact } from '../../src/modules/requestlog/redact.ts';
import { products, ship, uploadImage } from '../orders/helpers.ts';

function expectError(res: { statusCode: number; body: string }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(JSON.parse(res.body).code, code, res.body);
}

const SECRET = 'shopify-app-secret';
const SHOP = 'case-lovers.myshopify.com';

/** Shopify's documented example payload of a topic (API 2026-07); test/fixtures/shopify/webhooks/README.md names the source. */
function example(topic: string): any {
  const file = new URL(`../fixtures/shopify/webhooks/${topic.replace('/', '_')}.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8'));
}

describe('Shopify stores', () => {
  let t: TestApp;
  let shopify: ShopifyStandIn;
  let storeRef: string;
  let image: string;

  const post = (
    path: string,
    topic: string,
    payload: unknown,
    opts: { id?: string; shop?: string; secret?: string; raw?: string } = {},
  ) => {
    const raw = opts.raw ?? JSON.stringify(payload);
    const headers = shopify.webhookHeaders(topic, opts.shop ?? SHOP, raw, opts.id, opts.secret);
    return t.app.inject({ method: 'POST', url: path, headers, payload: raw });
  };
  const webhook = (topic: string, payload: unknown, opts: Parameters<typeof post>[3] = {}) =>
    post('/integrations/shopify/webhooks', topic, payload, opts);
  const inboxCount = async () =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM storefront_inbox'))[0].n;
  const ordersOfStore = async () =>
    (await call(t, 'GET', `/v2/orders?storeReference=${storeRef}`)).data.orders as Array<Record<string, any>>;

  /** The documented orders/create example with two of its lines turned into our products. */
  function orderPayload(name: string, id: string) {
    const o = example('orders/create');
    const p = products(t);
    o.admin_graphql_api_id = `gid://shopify/Order/${id}`;
    o.name = name;
    o.line_items[0].sku = `${p.clear}.${image}`;
    o.line_items[0].quantity = 2;
    o.line_items[1].sku = p.protector;
    o.shipping_address.country_code = 'NL';
    return o;
  }

  before(async () => {
    shopify = await new ShopifyStandIn(SECRET).start();
    t = await createTestApp({
      env: { SHOPIFY_API_KEY: 'app-key', SHOPIFY_API_SECRET: SECRET },
      shopifyFetch: shopify.fetch,
    });
    image = await uploadImage(t);
  });
  after(async () => {
    await t.close();
    await shopify.stop();
  });

  it('shows the demo Shopify store with three Shopify orders taken through the intake', async () => {
    const demo = t.seed.organizations[0].stores.find((x) => x.code === 'DEMOSHOP')!.reference;
    assert.equal((await t.s.storefronts.connection(demo))?.shopDomain, 'demo-cases.myshopify.com');
    const orders = (await call(t, 'GET', `/v2/orders?storeReference=${demo}`)).data.orders as Array<
      Record<string, any>
    >;
    assert.deepEqual(orders.map((o) => o.upstreamOrder?.name).sort(), ['#1001', '#1002', '#1003']);
    assert.deepEqual(
      orders.map((o) => o.shippingLevel).sort(),
      ['basic', 'express', 'tracked'],
      'the shipping line names the level',
    );
    const cancel = await call(t, 'POST', `/v2/orders/${orders[0].reference}/cancel`, {
      body: { orderlines: [{ index: 1, canceledQuantity: 1 }] },
    });
    expectError(cancel, 403, 'store_not_writable_via_api');
  });

  it('connects a store through OAuth, keeps the token sealed and registers as a fulfillment service', async () => {
    const org = t.seed.organizations[0];
    const orgId = org.reference;
    const account = org.accounts[0].reference;
    const brand = org.brands[0].reference;
    assert.throws(
      () =>
        t.s.storefronts.installUrl(orgId, { shop: 'evil.example.com', name: 'x', accountId: account, brandId: brand }),
      /not a shop address/,
    );
    const url = t.s.storefronts.installUrl(orgId, {
      shop: SHOP,
      name: 'Case Lovers',
      accountId: account,
      brandId: brand,
    });
    const u = new URL(url);
    assert.equal(u.host, SHOP);
    assert.equal(u.pathname, '/admin/oauth/authorize');
    assert.match(u.searchParams.get('scope')!, /write_assigned_fulfillment_orders/);
    const query = shopify.approve(url);

    const forged = await t.app.inject({
      method: 'GET',
      url: `/integrations/shopify/callback?${new URLSearchParams({ ...query, hmac: '0'.repeat(64) })}`,
    });
    expectError(forged, 400, 'shopify_oauth_failed');

    const res = await t.app.inject({
      method: 'GET',
      url: `/integrations/shopify/callback?${new URLSearchParams(query)}`,
    });
    assert.equal(res.statusCode, 303, res.body);
    storeRef = res.headers.location!.split('/')[3].split('?')[0];
    const stores = (await call(t, 'GET', '/v2/stores')).data.stores as Array<{
      reference: string;
      integration: string;
      accountReference: string;
    }>;
    const store = stores.find((s) => s.reference === storeRef)!;
    assert.equal(store.integration, 'shopify');
    assert.equal(store.accountReference, account);

    const conn = (await t.s.storefronts.connectionRow(storeRef))!;
    const token = [...shopify.tokens][0];
    assert.ok(conn.token_sealed && !conn.token_sealed.includes(token), 'the token is stored sealed');
    await t.s.worker.drain();
    assert.deepEqual(
      shopify.calls.map((c) => c.operation),
      ['FulfillmentServiceCreate', 'WebhookSubscriptionCreate', 'WebhookSubscriptionCreate'],
    );
    assert.equal(shopify.calls[0].token, token);
    assert.deepEqual(shopify.invalid, []);
    assert.ok((await t.s.storefronts.connection(storeRef))!.locationId);
  });

  it('takes orders/create as an order of the store, our lines only, exactly once', async () => {
    const payload = orderPayload('#9999', '5300000000001');
    const first = await webhook('orders/create', payload, { id: 'delivery-1' });
    assert.equal(first.statusCode, 200, first.body);
    const replay = await webhook('orders/create', payload, { id: 'delivery-1' });
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.json().duplicate, true);
    // Another delivery of the same order (a new webhook id) is stored, and still makes no second order.
    assert.equal((await webhook('orders/create', payload, { id: 'delivery-2' })).statusCode, 200);
    await t.s.worker.drain();
    const orders = await ordersOfStore();
    assert.equal(orders.length, 1);
    const o = orders[0];
    assert.deepEqual(o.upstreamOrder, { id: '5300000000001', name: '#9999' });
    assert.deepEqual(
      o.orderlines.map((l: any) => [l.productReference, l.quantity]),
      [
        [products(t).clear, 2],
        [products(t).protector, 1],
      ],
    );
    const address = (await call(t, 'GET', `/v2/addresses/${o.dropshipAddressReference}`)).data.address;
    assert.equal(address.email, 'jon@example.com');
    assert.equal(address.streetname, 'Shipping Street');
    assert.equal(address.housenumber, '123');
  });

  it('makes no order from an order without any of our products', async () => {
    const before = (await ordersOfStore()).length;
    assert.equal((await webhook('orders/create', example('orders/create'))).statusCode, 200);
    await t.s.worker.drain();
    assert.equal((await ordersOfStore()).length, before);
  });

  it('keeps these orders read-only through the API', async () => {
    const [o] = await ordersOfStore();
    const cancel = await call(t, 'POST', `/v2/orders/${o.reference}/cancel`, {
      body: { orderlines: [{ index: 1, canceledQuantity: 2 }] },
    });
    expectError(cancel, 403, 'store_not_writable_via_api');
  });

  it('refuses forged, unsigned, unknown-shop, malformed and oversized webhooks, storing nothing', async () => {
    const n = await inboxCount();
    const payload = orderPayload('#10000', '5300000000002');
    expectError(
      await webhook('orders/create', payload, { secret: 'not-the-secret' }),
      401,
      'shopify_signature_invalid',
    );
    const raw = JSON.stringify(payload);
    const unsigned = { ...shopify.webhookHeaders('orders/create', SHOP, raw) } as Record<string, string>;
    delete unsigned['x-shopify-hmac-sha256'];
    expectError(
      await t.app.inject({ method: 'POST', url: '/integrations/shopify/webhooks', headers: unsigned, payload: raw }),
      401,
      'shopify_signature_invalid',
    );
    expectError(await webhook('orders/create', payload, { shop: 'nobody.myshopify.com' }), 404, 'shopify_shop_unknown');
    expectError(
      await webhook('orders/create', null, { raw: '{"admin_graphql_api_id": ' }),
      400,
      'shopify_payload_invalid',
    );
    // PostgreSQL's jsonb holds no NUL character: refused with the payload's error, not the database's.
    const nul = await webhook('orders/create', { ...payload, note: 'a\u0000b' });
    expectError(nul, 400, 'shopify_payload_invalid');
    assert.match(nul.json().message, /NUL/);
    const noLines = await webhook('orders/create', { ...payload, line_items: 'none' });
    expectError(noLines, 400, 'shopify_payload_invalid');
    assert.match(noLines.json().message, /line_items/);
    const hugeAddress = await webhook('orders/create', {
      ...payload,
      shipping_address: { ...payload.shipping_address, address1: 'x'.repeat(1024 * 1024) },
    });
    assert.ok([400, 413].includes(hugeAddress.statusCode), hugeAddress.body);
    const lines = Array.from({ length: 50_000 }, () => ({ sku: products(t).protector, quantity: 1 }));
    const tooMany = await webhook('orders/create', { ...payload, line_items: lines });
    assert.ok([400, 413].includes(tooMany.statusCode), tooMany.body);
    assert.equal(await inboxCount(), n);
  });

  it('accepts a fulfillment request and reports the shipment with its tracking, retrying while Shopify is down', async () => {
    const [o] = await ordersOfStore();
    shopify.fulfillmentOrders.push({
      id: 'gid://shopify/FulfillmentOrder/1046000778',
      orderId: 'gid://shopify/Order/5300000000001',
      orderName: '#9999',
      status: 'FULFILLMENT_REQUESTED',
      lines: [{ sku: products(t).protector, quantity: 1 }],
      destination: {},
    });
    const note = await post('/integrations/shopify/fulfillment_order_notification', 'fulfillment_order_notification', {
      kind: 'FULFILLMENT_REQUEST',
    });
    assert.equal(note.statusCode, 200, note.body);
    await t.s.worker.drain();
    const accept = shopify.calls.find((c) => c.operation === 'AcceptFulfillmentRequest');
    assert.equal(accept?.variables.id, 'gid://shopify/FulfillmentOrder/1046000778');

    shopify.failures.push({ status: 503 }, { status: 429, headers: { 'retry-after': '2' } });
    await call(t, 'POST', `/v2/test-helpers/orders/${o.reference}/start-production`);
    const shipment = await ship(t, [o.reference]);
    await t.s.worker.drain();
    assert.equal(shopify.calls.filter((c) => c.operation === 'FulfillmentCreate').length, 0, 'Shopify was down');
    const [op] = await t.s.storefronts.operations(storeRef, null, 1);
    assert.equal(op.kind, 'fulfillment_create');
    assert.equal(op.status, 'queued');
    assert.match(op.lastError ?? '', /503/);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60_000);
      await t.s.worker.drain();
    }
    const created = shopify.calls.filter((c) => c.operation === 'FulfillmentCreate');
    assert.equal(created.length, 1);
    const sh = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.deepEqual(created[0].variables.fulfillment.lineItemsByFulfillmentOrder, [
      { fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/1046000778' },
    ]);
    if (sh.trackingNumber) assert.equal(created[0].variables.fulfillment.trackingInfo.number, sh.trackingNumber);
    assert.deepEqual(shopify.invalid, []);
  });

  it('makes the order from a fulfillment request that comes before orders/create, and orders/create adds no second', async () => {
    const p = products(t);
    shopify.fulfillmentOrders.push({
      id: 'gid://shopify/FulfillmentOrder/3001',
      orderId: 'gid://shopify/Order/5300000000009',
      orderName: '#10009',
      status: 'FULFILLMENT_REQUESTED',
      lines: [
        { sku: `${p.clear}.${image}`, quantity: 2 },
        { sku: 'SOMEONE-ELSES-MUG', quantity: 1 },
      ],
      destination: {
        firstName: 'Bob',
        lastName: 'Norman',
        address1: 'Prinsengracht 263',
        city: 'Amsterdam',
        zip: '1016 GV',
        countryCode: 'NL',
        email: 'bob@example.com',
        phone: null,
        company: null,
        address2: null,
        province: null,
      },
      deliveryMethod: { methodType: 'SHIPPING', presentedName: 'Express (next day)', serviceCode: 'EXPRESS' },
    });
    const note = await post('/integrations/shopify/fulfillment_order_notification', 'fulfillment_order_notification', {
      kind: 'FULFILLMENT_REQUEST',
    });
    assert.equal(note.statusCode, 200, note.body);
    await t.s.worker.drain();
    const accepted = shopify.calls.filter((c) => c.operation === 'AcceptFulfillmentRequest');
    assert.equal(accepted.at(-1)?.variables.id, 'gid://shopify/FulfillmentOrder/3001');
    const made = (await ordersOfStore()).filter((o) => o.upstreamOrder?.id === '5300000000009');
    assert.equal(made.length, 1);
    const order = (await call(t, 'GET', `/v2/orders/${made[0].reference}`)).data.order;
    assert.deepEqual(order.upstreamOrder, { id: '5300000000009', name: '#10009' });
    assert.deepEqual(
      order.orderlines.map((l: any) => [l.productReference, l.quantity]),
      [[p.clear, 2]],
    );
    assert.equal(order.dropshipMinimalShippingLevel, 'express');
    const address = (await call(t, 'GET', `/v2/addresses/${order.dropshipAddressReference}`)).data.address;
    assert.equal(address.email, 'bob@example.com');
    assert.equal(address.streetname, 'Prinsengracht');

    // orders/create arrives afterwards: the same Shopify order, taken already.
    assert.equal((await webhook('orders/create', orderPayload('#10009', '5300000000009'))).statusCode, 200);
    await t.s.worker.drain();
    assert.equal((await ordersOfStore()).filter((o) => o.upstreamOrder?.id === '5300000000009').length, 1);
    assert.deepEqual(shopify.invalid, []);
  });

  it('publishes a design as one product with a variant per model and the mockups as media, and updates it again', async () => {
    const p = products(t);
    const iphone16 =
      t.seed.organizations[0].products!.find((x) => x.name === 'iPhone 16 Clear Case')?.reference ?? p.leather;
    const refs = [p.clear, iphone16];
    const res = await call(t, 'POST', `/v2/stores/${storeRef}/shopify/publications`, {
      body: { publication: { imageReference: image, productReferences: refs, priceCents: 2995, title: 'Sunset case' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.publication.status, 'publishing');
    await t.s.worker.drain();
    const [pub] = (await call(t, 'GET', `/v2/stores/${storeRef}/shopify/publications`)).data.publications;
    assert.equal(pub.status, 'published', JSON.stringify(await t.s.storefronts.operations(storeRef, null, 3)));
    assert.match(pub.shopifyProductId, /^gid:\/\/shopify\/Product\//);
    const set = shopify.calls.filter((c) => c.operation === 'ProductSet');
    assert.equal(set.length, 1);
    const input = set[0].variables.input;
    assert.deepEqual(
      input.variants.map((v: any) => v.sku),
      refs.map((r) => `${r}.${image}`),
    );
    assert.equal(input.variants[0].price, '29.95');
    assert.ok(input.files.length >= 2, 'a mockup per model at least');
    assert.ok(pub.mediaCount >= 2);
    const media = [...shopify.uploads.values()];
    assert.equal(media.length, input.files.length);
    // The published product's first image, as the merchant's shop shows it.
    mkdirSync('test-artifacts/shopify', { recursive: true });
    const png = await sharp(media[0]).png().toBuffer();
    writeFileSync('test-artifacts/shopify/published-product-media.png', png);
    assert.ok((await sharp(png).metadata()).width! >= 600);

    // Publishing the same artwork again updates the same Shopify product.
    await call(t, 'POST', `/v2/stores/${storeRef}/shopify/publications`, {
      body: { publication: { imageReference: image, productReferences: refs, priceCents: 3495, title: 'Sunset case' } },
    });
    await t.s.worker.drain();
    const again = shopify.calls.filter((c) => c.operation === 'ProductSet');
    assert.equal(again.length, 2);
    assert.deepEqual(again[1].variables.identifier, { id: pub.shopifyProductId });
    const del = await call(t, 'DELETE', `/v2/stores/${storeRef}/shopify/publications/${pub.reference}`);
    assert.equal(del.statusCode, 200, del.body);
    await t.s.worker.drain();
    assert.equal(shopify.calls.at(-1)?.operation, 'ProductStatusUpdate');
    assert.equal(shopify.calls.at(-1)?.variables.product.status, 'ARCHIVED');
    assert.deepEqual(shopify.invalid, []);
    const apiStore = t.seed.organizations[0].stores.find((x) => x.integration === 'api')!.reference;
    const notShopify = await call(t, 'POST', `/v2/stores/${apiStore}/shopify/publications`, {
      body: { publication: { imageReference: image, productReferences: refs, priceCents: 100, title: 'x' } },
    });
    expectError(notShopify, 409, 'store_not_shopify');
    // Another organization's store, or no store at all, is not found: never "not on Shopify".
    const foreign = t.seed.organizations[1].stores[0].reference;
    for (const ref of [foreign, 'Store_doesnotexist', 'Brand_x'])
      expectError(await call(t, 'GET', `/v2/stores/${ref}/shopify/publications`), 404, 'not_found');
  });

  it('answers a cancellation request: cancels what is not in production, refuses what is', async () => {
    const pending = orderPayload('#10001', '5300000000003');
    assert.equal((await webhook('orders/create', pending)).statusCode, 200);
    await t.s.worker.drain();
    const made = (await ordersOfStore()).find((o) => o.upstreamOrder?.name === '#10001')!;
    const [shipped] = (await ordersOfStore()).filter((o) => o.upstreamOrder?.name === '#9999');
    shopify.fulfillmentOrders.push(
      {
        id: 'gid://shopify/FulfillmentOrder/2001',
        orderId: 'gid://shopify/Order/5300000000003',
        orderName: '#10001',
        status: 'CANCELLATION_REQUESTED',
        lines: [],
        destination: {},
      },
      {
        id: 'gid://shopify/FulfillmentOrder/2002',
        orderId: 'gid://shopify/Order/5300000000001',
        orderName: '#9999',
        status: 'CANCELLATION_REQUESTED',
        lines: [],
        destination: {},
      },
    );
    const note = await post('/integrations/shopify/fulfillment_order_notification', 'fulfillment_order_notification', {
      kind: 'CANCELLATION_REQUEST',
    });
    assert.equal(note.statusCode, 200);
    await t.s.worker.drain();
    assert.equal((await call(t, 'GET', `/v2/orders/${made.reference}`)).data.order.status.code, 'canceled');
    assert.equal(
      shopify.calls.find((c) => c.operation === 'AcceptCancellationRequest')?.variables.id,
      'gid://shopify/FulfillmentOrder/2001',
    );
    const refused = shopify.calls.find((c) => c.operation === 'RejectCancellationRequest');
    assert.equal(refused?.variables.id, 'gid://shopify/FulfillmentOrder/2002');
    assert.match(refused?.variables.message, /shipped/);
    assert.equal((await call(t, 'GET', `/v2/orders/${shipped.reference}`)).data.order.status.code, 'shipped');
  });

  it('acts on the privacy webhooks and records what was done', async () => {
    const data = example('customers/data_request');
    data.shop_domain = SHOP;
    data.orders_requested = [5300000000001];
    assert.equal((await webhook('customers/data_request', data)).statusCode, 200);
    const redact = example('customers/redact');
    redact.shop_domain = SHOP;
    redact.orders_to_redact = [5300000000003, 5300000000001];
    assert.equal((await webhook('customers/redact', redact)).statusCode, 200);
    await t.s.worker.drain();
    const log = await t.s.storefronts.privacyLog(storeRef);
    const byTopic = Object.fromEntries(log.map((l) => [l.topic, l.action]));
    assert.match(byTopic['customers/data_request'], /holds the shipping address and lines of 1 order/);
    // The canceled order's address goes at once; the shipped one's claim window is still open.
    assert.match(byTopic['customers/redact'], /redacted 1 address\(es\); the rest is redacted on \d{4}-\d{2}-\d{2}/);
    const [canceled] = (await ordersOfStore()).filter((o) => o.upstreamOrder?.name === '#10001');
    const address = (await call(t, 'GET', `/v2/addresses/${canceled.dropshipAddressReference}`)).data.address;
    assert.equal(address.email, undefined);
    t.clock.advance(101 * 86_400_000);
    await t.s.worker.drain();
    const later = await t.s.storefronts.privacyLog(storeRef);
    assert.match(later[0].action, /redacted 1 address/);
  });

  it('keeps Shopify ids past 2^53 exact, from orders/create to a privacy request naming the order', async () => {
    const big = '9007199254740993'; // 2^53 + 1: a double reads it as ...992
    const o = orderPayload('#10077', big);
    const raw = JSON.stringify({ ...o, id: 0 }).replace('"id":0', `"id":${big}`);
    assert.equal((await webhook('orders/create', null, { raw })).statusCode, 200);
    await t.s.worker.drain();
    const [made] = (await ordersOfStore()).filter((x) => x.upstreamOrder?.name === '#10077');
    assert.equal(made.upstreamOrder.id, big);

    const data = example('customers/data_request');
    data.shop_domain = SHOP;
    data.orders_requested = [0];
    const rawRequest = JSON.stringify(data).replace('"orders_requested":[0]', `"orders_requested":[${big}]`);
    assert.equal((await webhook('customers/data_request', null, { raw: rawRequest })).statusCode, 200);
    await t.s.worker.drain();
    const [entry] = await t.s.storefronts.privacyLog(storeRef, 1);
    assert.match(entry.action, new RegExp(`${big} → ${made.reference}`));
  });

  it('never writes an access token to the server log or the request log', async () => {
    const lines: string[] = [];
    const log = createLogger({ logLevel: 'info' }, { write: (l: string) => lines.push(l) } as never);
    const token = 'shpat_0123456789abcdef';
    log.info(
      { accessToken: token, res: { access_token: token }, call: { headers: { 'x-shopify-access-token': token } } },
      'call',
    );
    assert.ok(lines.length === 1 && !lines[0].includes(token), lines[0]);
    assert.ok(!JSON.stringify(redact({ access_token: token, accessToken: token })).includes(token));
  });

  it('disconnects on app/uninstalled and keeps the store with its history', async () => {
    const kept = (await ordersOfStore()).length;
    const res = await webhook('app/uninstalled', example('app/uninstalled'));
    assert.equal(res.statusCode, 200);
    await t.s.worker.drain();
    assert.equal((await t.s.storefronts.connection(storeRef))!.status, 'disconnected');
    assert.equal((await t.s.storefronts.connectionRow(storeRef))!.token_sealed, null);
    assert.equal((await ordersOfStore()).length, kept);
  });
});

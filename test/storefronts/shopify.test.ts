import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { ShopifyStandIn } from '../support/shopify-standin.ts';
import { products, ship, uploadImage } from '../orders/helpers.ts';
import {
  SHOP,
  SHOPIFY_SECRET,
  type WebhookOptions,
  expectError,
  orderPayload as payloadOf,
  shopifyExample as example,
  signedWebhook,
} from './helpers.ts';

// One connected store's life, in order: connecting, orders in, fulfilment, cancellation, privacy, uninstall.
describe('Shopify stores', () => {
  let t: TestApp;
  let shopify: ShopifyStandIn;
  let storeRef: string;
  let image: string;

  const post = (path: string, topic: string, payload: unknown, opts: WebhookOptions = {}) =>
    signedWebhook(t, shopify, path, topic, payload, opts);
  const webhook = (topic: string, payload: unknown, opts: WebhookOptions = {}) =>
    post('/integrations/shopify/webhooks', topic, payload, opts);
  const ordersOfStore = async () =>
    (await call(t, 'GET', `/v2/orders?storeReference=${storeRef}`)).data.orders as Array<Record<string, any>>;
  const orderPayload = (name: string, id: string) => payloadOf(t, image, name, id);

  before(async () => {
    shopify = await new ShopifyStandIn(SHOPIFY_SECRET).start();
    t = await createTestApp({
      env: { SHOPIFY_API_KEY: 'app-key', SHOPIFY_API_SECRET: SHOPIFY_SECRET },
      shopifyFetch: shopify.fetch,
    });
    image = await uploadImage(t);
  });
  after(async () => {
    await t.close();
    await shopify.stop();
  });

  it('connects a store through OAuth, keeps the token sealed and registers as a fulfillment service', async () => {
    const org = t.seed.organizations[0];
    const orgId = org.reference;
    const account = org.accounts[0].reference;
    const brand = org.brands[0].reference;
    await assert.rejects(
      () =>
        t.s.storefronts.installUrl(orgId, { shop: 'evil.example.com', name: 'x', accountId: account, brandId: brand }),
      /not a shop address/,
    );
    const url = await t.s.storefronts.installUrl(orgId, {
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

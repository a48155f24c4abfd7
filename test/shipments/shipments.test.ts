import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import {
  ADDRESS,
  createOrder,
  expectError,
  getOrder,
  orderBody,
  products,
  ship,
  startProduction,
  store,
  uploadImage,
} from '../orders/helpers.ts';

describe('shipments and fulfilment test helpers', () => {
  let t: TestApp;
  let image: string;
  let p: ReturnType<typeof products>;
  const combined = (code = 'DEMO2') =>
    createOrder(t, {
      order: {
        storeReference: store(t, code),
        shippingKind: 'combined',
        orderlines: [{ productReference: p.protector, quantity: 2 }],
      },
    });
  before(async () => {
    t = await createTestApp();
    image = await uploadImage(t);
    p = products(t);
  });
  after(() => t.close());

  it('starts production only for pending and preorder orders', async () => {
    const ref = await createOrder(t, orderBody(t, image));
    t.clock.advance(5000);
    await startProduction(t, ref);
    const o = await getOrder(t, ref);
    assert.equal(o.status.code, 'in_production');
    assert.equal(o.status.modified, t.clock.now().toISOString());
    expectError(await call(t, 'POST', `/v2/test-helpers/orders/${ref}/start-production`), 409, 'order_not_pending');
    expectError(await call(t, 'POST', '/v2/test-helpers/orders/Order_x/start-production'), 404, 'not_found');
    expectError(
      await call(t, 'POST', `/v2/test-helpers/orders/${ref}/start-production`, { key: t.otherKey }),
      404,
      'not_found',
    );
    const pre = await createOrder(
      t,
      orderBody(t, image, { orderlines: [{ productReference: p.prelaunched, imageReference: image, quantity: 1 }] }),
    );
    await startProduction(t, pre);
  });

  it('ships a tracked dropship order with carrier, tracking number and a tracking page', async () => {
    const ref = await createOrder(t, orderBody(t, image, { dropshipMinimalShippingLevel: 'tracked' }));
    expectError(
      await call(t, 'POST', '/v2/test-helpers/shipments', { body: { shipment: { orderReferences: [ref] } } }),
      409,
      'order_not_in_production',
    );
    await startProduction(t, ref);
    const shippedAt = new Date(t.clock.now().getTime() - 3 * 86400_000).toISOString();
    const shipmentRef = await ship(t, [ref], { shippedAt, carrier: 'PostNL' });
    const res = await call(t, 'GET', `/v2/shipments/${shipmentRef}`);
    assert.equal(res.statusCode, 200);
    const s = res.data.shipment;
    assert.equal(s.reference, shipmentRef);
    assert.deepEqual(s.orders, [{ reference: ref }]);
    assert.equal(s.level, 'tracked');
    assert.equal(s.shippingKind, 'dropship');
    assert.equal(s.shipped, shippedAt);
    assert.equal(s.carrier, 'PostNL');
    assert.match(s.trackingNumber, /^TEST\d{14}$/);
    assert.match(s.trackingUrl, /\/tracking\/[0-9a-z]{32}$/);
    const o = await getOrder(t, ref);
    assert.equal(o.status.code, 'shipped');
    assert.equal(o.shipmentReference, shipmentRef);
    assert.deepEqual(
      o.orderlines.map((l: any) => l.shippedQuantity),
      [2],
    );
    const page = await call(t, 'GET', new URL(s.trackingUrl).pathname, { key: null });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.ok(page.body.includes('PostNL') && page.body.includes(s.trackingNumber) && page.body.includes('Amsterdam'));
    assert.ok(
      !page.body.includes('Jansen') && !page.body.includes('anna@example.com') && !page.body.includes('Prinsengracht'),
      'no personal data',
    );
    expectError(
      await call(t, 'POST', '/v2/test-helpers/shipments', { body: { shipment: { orderReferences: [ref] } } }),
      409,
      'order_not_in_production',
    );
  });

  it('records order.shipped, shipment.created and order.updated events', async () => {
    const ref = await createOrder(t, orderBody(t, image, { dropshipMinimalShippingLevel: 'express' }));
    await startProduction(t, ref);
    const shipmentRef = await ship(t, [ref]);
    const events = (await call(t, 'GET', '/v2/events?limit=100')).data.events;
    const of = (type: string) => events.filter((e: any) => e.type === type);
    assert.ok(of('order.created').some((e: any) => e.data.order.reference === ref));
    assert.ok(
      of('order.updated').some(
        (e: any) => e.data.order.reference === ref && e.data.order.status.code === 'in_production',
      ),
    );
    const shipped = of('order.shipped').find((e: any) => e.data.order.reference === ref);
    assert.equal(shipped.data.order.status.code, 'shipped');
    assert.equal(shipped.data.order.shipmentReference, shipmentRef);
    const created = of('shipment.created').find((e: any) => e.data.shipment.reference === shipmentRef);
    assert.equal(created.data.shipment.level, 'express');
    assert.equal(created.data.shipment.carrier, 'DHL Express');
  });

  it('shows no carrier data for basic shipments', async () => {
    const ref = await createOrder(t, orderBody(t, image));
    await startProduction(t, ref);
    expectError(
      await call(t, 'POST', '/v2/test-helpers/shipments', {
        body: { shipment: { orderReferences: [ref], carrier: 'DHL' } },
      }),
      400,
      'invalid_request',
      'carrier',
    );
    const s = (await call(t, 'GET', `/v2/shipments/${await ship(t, [ref])}`)).data.shipment;
    assert.equal(s.level, 'basic');
    assert.equal('carrier' in s || 'trackingNumber' in s || 'trackingUrl' in s, false);
  });

  it('consolidates combined orders of one store into one shipment', async () => {
    const a = await combined();
    const b = await combined();
    const c = await combined('DEMO1');
    for (const r of [a, b, c]) await startProduction(t, r);
    expectError(
      await call(t, 'POST', '/v2/test-helpers/shipments', { body: { shipment: { orderReferences: [a, c] } } }),
      400,
      'invalid_request',
      'different stores',
    );
    const shipmentRef = await ship(t, [a, b]);
    const s = (await call(t, 'GET', `/v2/shipments/${shipmentRef}`)).data.shipment;
    assert.equal(s.shippingKind, 'combined');
    assert.deepEqual(s.orders.map((o: any) => o.reference).sort(), [a, b].sort());
    const address = await call(t, 'GET', `/v2/addresses/${s.addressReference}`);
    assert.equal(address.data.address.company, 'Demo Cases GmbH');
    for (const r of [a, b]) assert.equal((await getOrder(t, r)).shipmentReference, shipmentRef);
  });

  it('ships a dropship order alone and checks the body', async () => {
    const a = await createOrder(t, orderBody(t, image));
    const b = await createOrder(t, orderBody(t, image));
    const c = await combined();
    for (const r of [a, b, c]) await startProduction(t, r);
    const post = (shipment: unknown) => call(t, 'POST', '/v2/test-helpers/shipments', { body: { shipment } });
    expectError(await post({ orderReferences: [a, b] }), 400, 'invalid_request', 'alone');
    expectError(await post({ orderReferences: [c, a] }), 400, 'invalid_request');
    expectError(await post({ orderReferences: [a, a] }), 400, 'invalid_request', 'twice');
    expectError(await post({ orderReferences: [] }), 400, 'invalid_request', 'orderReferences');
    expectError(await post({ orderReferences: ['Order_nope'] }), 400, 'invalid_request', 'orderReferences[0]');
    expectError(await post({ orderReferences: [a], shippedAt: 'yesterday' }), 400, 'invalid_request', 'shippedAt');
    expectError(
      await post({ orderReferences: [a], shippedAt: new Date(t.clock.now().getTime() + 86400_000).toISOString() }),
      400,
      'invalid_request',
      'future',
    );
    expectError(await post({ orderReferences: [a], extra: 1 }), 400, 'invalid_request', 'body.shipment.extra');
    expectError(
      await call(t, 'POST', '/v2/test-helpers/shipments', {
        key: t.otherKey,
        body: { shipment: { orderReferences: [a] } },
      }),
      400,
      'invalid_request',
    );
  });

  it('answers 404 for unknown and foreign shipments', async () => {
    const ref = await createOrder(t, orderBody(t, image, { dropshipMinimalShippingLevel: 'tracked' }));
    await startProduction(t, ref);
    const shipmentRef = await ship(t, [ref]);
    expectError(await call(t, 'GET', `/v2/shipments/${shipmentRef}`, { key: t.otherKey }), 404, 'not_found');
    expectError(await call(t, 'GET', '/v2/shipments/Shipment_0123456789abcdefghjkmnpqrs'), 404, 'not_found');
    expectError(await call(t, 'GET', '/v2/shipments/<script>'), 404, 'not_found');
    const missing = await call(t, 'GET', '/tracking/0123456789abcdefghjkmnpqrstvwxyz', { key: null });
    assert.equal(missing.statusCode, 404);
    assert.equal((await call(t, 'GET', '/tracking/..%2F..%2Fetc', { key: null })).statusCode, 404);
  });

  it('escapes brand data on the tracking page', async () => {
    const orgId = t.seed.organizations[0].reference;
    const brand = await t.s.organization.createBrand(orgId, {
      name: '<script>alert(1)</script> & Co',
      logoUrl: 'javascript:alert(1)',
      primaryColor: '#123456',
      secondaryColor: '#abcdef',
      customerService: { email: 'help"@x.example', phonenumber: '+31 6 1234 5678', url: 'https://help.example/?a=<b>' },
    });
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        dropshipMinimalShippingLevel: 'tracked',
        brandReference: brand.reference,
        dropshipAddress: { ...ADDRESS, city: '<img src=x onerror=alert(1)>' },
      }),
    );
    await startProduction(t, ref);
    const s = (await call(t, 'GET', `/v2/shipments/${await ship(t, [ref])}`)).data.shipment;
    const page = await call(t, 'GET', new URL(s.trackingUrl).pathname, { key: null });
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes('<script>alert') && !page.body.includes('<img src=x'), 'markup is escaped');
    assert.ok(page.body.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co'));
    assert.ok(!page.body.includes('javascript:'), 'unsafe logo URL dropped');
    assert.ok(page.body.includes('#123456') && page.body.includes('#abcdef'));
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
  });

  it('documents the endpoints in OpenAPI, without the public tracking page', async () => {
    const doc = (await call(t, 'GET', '/v2/openapi.json', { key: null })).data;
    const ops = Object.values(doc.paths).flatMap((p: any) => Object.values(p).map((o: any) => o.operationId));
    for (const id of [
      'createOrder',
      'listOrders',
      'getOrder',
      'cancelOrderlines',
      'changeDropshipAddress',
      'getAddress',
      'lookupOrderByCustomIdentifier',
      'quoteShipping',
      'getShipment',
      'testStartProduction',
      'testCreateShipment',
    ]) {
      assert.ok(ops.includes(id), `${id} is documented`);
    }
    assert.ok(
      !Object.keys(doc.paths).some((path) => path.startsWith('/tracking/')),
      'the public page is not an API operation',
    );
  });
});

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
} from './helpers.ts';

describe('cancel and dropship-address change', () => {
  let t: TestApp;
  let image: string;
  let p: ReturnType<typeof products>;
  const twoLines = () =>
    orderBody(t, image, {
      orderlines: [
        { productReference: p.clear, imageReference: image, quantity: 3 },
        { productReference: p.protector, quantity: 2 },
      ],
    });
  const cancel = (ref: string, orderlines: unknown, key = t.key) =>
    call(t, 'POST', `/v2/orders/${ref}/cancel`, { key, body: { orderlines } });
  const move = (ref: string, dropshipAddress: unknown) =>
    call(t, 'PUT', `/v2/orders/${ref}/dropship-address`, { body: { dropshipAddress } });

  before(async () => {
    t = await createTestApp();
    image = await uploadImage(t);
    p = products(t);
  });
  after(() => t.close());

  it('sets absolute totals, repeats idempotently and leaves unlisted lines alone', async () => {
    const ref = await createOrder(t, twoLines());
    const before = await getOrder(t, ref);
    let res = await cancel(ref, [{ index: 1, canceledQuantity: 2 }]);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    res = await cancel(ref, [{ index: 1, canceledQuantity: 2 }]);
    assert.equal(res.statusCode, 204);
    const o = await getOrder(t, ref);
    assert.deepEqual(
      o.orderlines.map((l: any) => l.canceledQuantity),
      [2, 0],
    );
    assert.equal(o.status.code, 'pending');
    assert.equal(o.prices.products, before.prices.products - 2 * 1495);
    assert.ok(o.prices.shipping < before.prices.shipping, 'shipping follows the remaining items');
  });

  it('is atomic across lines and names the failing rule', async () => {
    const ref = await createOrder(t, twoLines());
    await cancel(ref, [{ index: 1, canceledQuantity: 1 }]);
    expectError(
      await cancel(ref, [
        { index: 2, canceledQuantity: 1 },
        { index: 1, canceledQuantity: 0 },
      ]),
      409,
      'canceled_quantity_below_current',
    );
    expectError(
      await cancel(ref, [
        { index: 2, canceledQuantity: 1 },
        { index: 1, canceledQuantity: 4 },
      ]),
      409,
      'canceled_quantity_exceeds_shippable',
    );
    expectError(
      await cancel(ref, [
        { index: 2, canceledQuantity: 1 },
        { index: 9, canceledQuantity: 1 },
      ]),
      400,
      'invalid_request',
      'index',
    );
    expectError(
      await cancel(ref, [
        { index: 2, canceledQuantity: 1 },
        { index: 2, canceledQuantity: 2 },
      ]),
      400,
      'invalid_request',
      'twice',
    );
    expectError(await cancel(ref, [{ index: 2, canceledQuantity: -1 }]), 400, 'invalid_request', 'canceledQuantity');
    expectError(await cancel(ref, []), 400, 'invalid_request');
    expectError(
      await call(t, 'POST', `/v2/orders/${ref}/cancel`, { body: { order: { orderlines: [] } } }),
      400,
      'invalid_request',
      'body.order',
    );
    assert.deepEqual(
      (await getOrder(t, ref)).orderlines.map((l: any) => l.canceledQuantity),
      [1, 0],
      'nothing changed',
    );
  });

  it('cancels the whole order when every line is fully canceled', async () => {
    const ref = await createOrder(t, twoLines());
    t.clock.advance(1000);
    assert.equal(
      (
        await cancel(ref, [
          { index: 1, canceledQuantity: 3 },
          { index: 2, canceledQuantity: 2 },
        ])
      ).statusCode,
      204,
    );
    const o = await getOrder(t, ref);
    assert.equal(o.status.code, 'canceled');
    assert.equal(o.status.modified, t.clock.now().toISOString());
    assert.deepEqual(o.prices, { products: 0, shipping: 0, total: 0 });
    assert.equal(
      (await cancel(ref, [{ index: 1, canceledQuantity: 3 }])).statusCode,
      204,
      'a repeat still answers 204',
    );
    expectError(await move(ref, ADDRESS), 409, 'order_completed');
  });

  it('refuses orders in production and shipped quantities', async () => {
    const ref = await createOrder(t, twoLines());
    await cancel(ref, [{ index: 2, canceledQuantity: 1 }]);
    await startProduction(t, ref);
    expectError(await cancel(ref, [{ index: 1, canceledQuantity: 1 }]), 409, 'already_in_production');
    expectError(await cancel(ref, [{ index: 1, canceledQuantity: 99 }]), 409, 'already_in_production');
    expectError(await cancel(ref, [{ index: 2, canceledQuantity: 0 }]), 409, 'already_in_production');
    assert.equal(
      (await cancel(ref, [{ index: 2, canceledQuantity: 1 }])).statusCode,
      204,
      'a repeat in production still answers 204',
    );
    await ship(t, [ref]);
    const o = await getOrder(t, ref);
    assert.equal(o.status.code, 'shipped');
    assert.deepEqual(
      o.orderlines.map((l: any) => [l.shippedQuantity, l.canceledQuantity]),
      [
        [3, 0],
        [1, 1],
      ],
    );
    expectError(await cancel(ref, [{ index: 1, canceledQuantity: 1 }]), 409, 'canceled_quantity_exceeds_shippable');
    assert.equal((await cancel(ref, [{ index: 2, canceledQuantity: 1 }])).statusCode, 204);
    expectError(await move(ref, ADDRESS), 409, 'order_completed');
  });

  it('keeps totals consistent under concurrent cancels', async () => {
    const ref = await createOrder(t, twoLines());
    const results = await Promise.all([
      cancel(ref, [{ index: 1, canceledQuantity: 2 }]),
      cancel(ref, [{ index: 1, canceledQuantity: 1 }]),
      cancel(ref, [
        { index: 1, canceledQuantity: 2 },
        { index: 2, canceledQuantity: 2 },
      ]),
    ]);
    for (const r of results) assert.ok([204, 409].includes(r.statusCode), r.body);
    const o = await getOrder(t, ref);
    assert.equal(o.orderlines[0].canceledQuantity, 2);
    const ok = results.filter((r) => r.statusCode === 204).length;
    assert.ok(ok >= 2);
  });

  it('hides foreign orders and refuses stores of upstream platforms', async () => {
    const ref = await createOrder(t, twoLines());
    expectError(await cancel(ref, [{ index: 1, canceledQuantity: 1 }], t.otherKey), 404, 'not_found');
    expectError(await cancel('Order_nope', [{ index: 1, canceledQuantity: 1 }]), 404, 'not_found');
    expectError(
      await call(t, 'PUT', `/v2/orders/${ref}/dropship-address`, {
        key: t.otherKey,
        body: { dropshipAddress: ADDRESS },
      }),
      404,
      'not_found',
    );
    // An order of a store that moved to Shopify afterwards can only change there.
    const shop = t.seed.organizations[0].stores.find((s) => s.code === 'DEMO2')!;
    const combinedRef = await createOrder(t, {
      order: {
        storeReference: shop.reference,
        shippingKind: 'combined',
        orderlines: [{ productReference: p.protector, quantity: 1 }],
      },
    });
    const orgRef = t.seed.organizations[0].reference;
    await t.s.organization.updateStore(orgRef, shop.reference, { integration: 'shopify' });
    try {
      expectError(await cancel(combinedRef, [{ index: 1, canceledQuantity: 1 }]), 403, 'store_not_writable_via_api');
      expectError(await move(combinedRef, ADDRESS), 403, 'store_not_writable_via_api');
    } finally {
      await t.s.organization.updateStore(orgRef, shop.reference, { integration: 'api' });
    }
    expectError(await move(combinedRef, ADDRESS), 409, 'order_not_dropship');
  });

  it('replaces the dropship address entirely with a new reference', async () => {
    const ref = await createOrder(t, twoLines());
    const before = await getOrder(t, ref);
    t.clock.advance(1000);
    const res = await move(ref, {
      firstname: 'Jonas',
      lastname: 'Weber',
      streetname: 'Packstation 105',
      additionalInfo: '12345678',
      zipcode: '10115',
      city: 'Berlin',
      countryCode: 'DE',
      email: 'jonas@example.de',
    });
    assert.equal(res.statusCode, 204, res.body);
    const after = await getOrder(t, ref);
    assert.notEqual(after.dropshipAddressReference, before.dropshipAddressReference);
    assert.equal(after.shippingLevel, 'tracked', 'a Packstation ships tracked only');
    const address = await call(t, 'GET', `/v2/addresses/${after.dropshipAddressReference}`);
    assert.equal(address.data.address.city, 'Berlin');
    assert.equal(address.data.address.phonenumber, undefined, 'fields left out are gone');
    expectError(await call(t, 'GET', `/v2/addresses/${before.dropshipAddressReference}`), 404, 'not_found');
    const events = (await call(t, 'GET', '/v2/events?type=order.updated&limit=100')).data.events;
    assert.ok(
      events.some(
        (e: any) =>
          e.data.order.reference === ref && e.data.order.dropshipAddressReference === after.dropshipAddressReference,
      ),
      'order.updated carries the new address reference',
    );
  });

  it('validates the new address like order creation', async () => {
    const ref = await createOrder(t, twoLines());
    const { email: _e, ...noEmail } = ADDRESS;
    expectError(await move(ref, noEmail), 400, 'invalid_address_missing_email');
    expectError(await move(ref, { ...ADDRESS, countryCode: 'KP' }), 400, 'invalid_address_denied_country');
    expectError(await move(ref, { ...ADDRESS, city: '' }), 400, 'invalid_address', 'body.dropshipAddress.city');
    expectError(await move(ref, { ...ADDRESS, planet: 'Mars' }), 400, 'invalid_request', 'body.dropshipAddress.planet');
    expectError(await call(t, 'PUT', `/v2/orders/${ref}/dropship-address`, { body: ADDRESS }), 400, 'invalid_request');
  });

  it('keeps an address a shipment was created with resolvable', async () => {
    const ref = await createOrder(t, orderBody(t, image, { dropshipMinimalShippingLevel: 'tracked' }));
    await startProduction(t, ref);
    const shipment = await ship(t, [ref]);
    const o = await getOrder(t, ref);
    const s = await call(t, 'GET', `/v2/shipments/${shipment}`);
    assert.equal(s.data.shipment.addressReference, o.dropshipAddressReference);
    assert.equal((await call(t, 'GET', `/v2/addresses/${o.dropshipAddressReference}`)).statusCode, 200);
  });

  it('locks the address of a replacement order', async () => {
    const ref = await createOrder(t, orderBody(t, image, { dropshipMinimalShippingLevel: 'tracked' }));
    const orgId = t.seed.organizations[0].reference;
    const replacement = await t.db.tx((tx) =>
      t.s.orders.createReplacementOrder(tx, {
        organizationId: orgId,
        claimReference: 'Claim_0123456789abcdefghjkmnpqrs',
        orderReference: ref,
        address: { ...ADDRESS, city: 'Utrecht' },
        shippingLevel: 'tracked',
        lines: [{ orderlineIndex: 1, quantity: 1 }],
      }),
    );
    const o = await getOrder(t, replacement.reference);
    assert.equal(o.replacementForClaimReference, 'Claim_0123456789abcdefghjkmnpqrs');
    assert.equal(o.status.code, 'pending');
    assert.equal(o.shippingLevel, 'tracked');
    assert.deepEqual(o.prices, { products: 0, shipping: 0, total: 0 });
    assert.equal(o.orderlines[0].imageReference, image);
    assert.equal((await call(t, 'GET', `/v2/addresses/${o.dropshipAddressReference}`)).data.address.city, 'Utrecht');
    expectError(await move(replacement.reference, ADDRESS), 409, 'replacement_address_locked');
    assert.ok(store(t, 'DEMO1'));
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, expectError, getOrder, orderBody, products, store, uploadImage } from './helpers.ts';

describe('POST /v2/orders and reading orders', () => {
  let t: TestApp;
  let image: string;
  let p: ReturnType<typeof products>;
  before(async () => {
    t = await createTestApp();
    image = await uploadImage(t);
    p = products(t);
  });
  after(() => t.close());

  it('creates a dropship order and returns it with every field', async () => {
    const ref = await createOrder(t, orderBody(t, image, { customIdentifier: 'shop-1001' }));
    assert.match(ref, /^Order_[0-9a-hjkmnp-tv-z]{26}$/);
    const o = await getOrder(t, ref);
    assert.equal(o.reference, ref);
    assert.equal(o.storeReference, store(t, 'DEMO1'));
    assert.equal(o.shippingKind, 'dropship');
    assert.equal(o.customIdentifier, 'shop-1001');
    assert.equal(o.status.code, 'pending');
    assert.equal(o.status.modified, t.clock.now().toISOString());
    assert.equal(o.created, t.clock.now().toISOString());
    assert.match(o.legacyOrderCode, /^DEMO1-\d+$/);
    assert.equal(o.dropshipMinimalShippingLevel, 'basic');
    assert.equal(o.shippingLevel, 'basic');
    // NL basic: 295 base + 25 per item; two cases of 1495.
    assert.deepEqual(o.prices, { products: 2990, shipping: 345, total: 3335 });
    assert.equal(o.brandReference, t.seed.organizations[0].brands[0].reference, 'default brand of the store');
    assert.equal(o.preferredPackagingReference, null);
    assert.equal(o.shipmentReference, null);
    assert.equal(o.replacementForClaimReference, null);
    assert.deepEqual(o.orderlines, [
      {
        index: 1,
        productReference: p.clear,
        imageReference: image,
        quantity: 2,
        canceledQuantity: 0,
        shippedQuantity: 0,
        annotations: [],
      },
    ]);
    const address = await call(t, 'GET', `/v2/addresses/${o.dropshipAddressReference}`);
    assert.equal(address.statusCode, 200);
    assert.equal(address.data.address.reference, o.dropshipAddressReference);
    assert.equal(address.data.address.city, 'Amsterdam');
    assert.equal(address.data.address.email, 'anna@example.com');
  });

  it('numbers orders per store for the legacy code', async () => {
    const a = await getOrder(t, await createOrder(t, orderBody(t, image)));
    const b = await getOrder(t, await createOrder(t, orderBody(t, image)));
    const n = (code: string) => Number(code.split('-')[1]);
    assert.equal(n(b.legacyOrderCode), n(a.legacyOrderCode) + 1);
  });

  it('creates a combined order on the store address, without address or shipping options', async () => {
    const ref = await createOrder(t, {
      order: {
        storeReference: store(t, 'DEMO2'),
        shippingKind: 'combined',
        orderlines: [{ productReference: p.protector, quantity: 3 }],
      },
    });
    const o = await getOrder(t, ref);
    assert.equal(o.shippingKind, 'combined');
    assert.equal(o.dropshipAddressReference, null);
    assert.equal(o.dropshipMinimalShippingLevel, null);
    assert.equal(o.shippingLevel, null);
    assert.deepEqual(o.prices, { products: 3 * 799, shipping: 0, total: 3 * 799 });
    assert.equal(o.brandReference, t.seed.organizations[0].brands[1].reference);
    for (const field of ['dropshipAddress', 'dropshipMinimalShippingLevel']) {
      const extra = field === 'dropshipAddress' ? ADDRESS : 'tracked';
      const res = await call(t, 'POST', '/v2/orders', {
        body: {
          order: {
            storeReference: store(t, 'DEMO2'),
            shippingKind: 'combined',
            [field]: extra,
            orderlines: [{ productReference: p.protector, quantity: 1 }],
          },
        },
      });
      expectError(res, 400, 'invalid_request', `body.order.${field}`);
    }
  });

  it('keeps customIdentifier unique per organization and looks orders up by it', async () => {
    const ref = await createOrder(t, orderBody(t, image, { customIdentifier: 'dup-1' }));
    const again = await call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { customIdentifier: 'dup-1' }) });
    expectError(again, 409, 'custom_identifier_in_use', ref);
    const found = await call(
      t,
      'GET',
      '/v2/utilities/lookup-order-reference-by-custom-identifier?customIdentifier=dup-1',
    );
    assert.equal(found.statusCode, 200);
    assert.deepEqual(found.data, { orderReference: ref });
    expectError(
      await call(t, 'GET', '/v2/utilities/lookup-order-reference-by-custom-identifier?customIdentifier=nope'),
      404,
      'not_found',
    );
    expectError(
      await call(t, 'GET', '/v2/utilities/lookup-order-reference-by-custom-identifier'),
      400,
      'invalid_request',
      'customIdentifier',
    );
    // another organization may use the same identifier, and cannot see ours
    const otherImage = await uploadImage(t, t.otherKey);
    await createOrder(
      t,
      {
        order: {
          storeReference: store(t, 'OTHER1'),
          shippingKind: 'dropship',
          customIdentifier: 'dup-1',
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference: p.clear, imageReference: otherImage, quantity: 1 }],
        },
      },
      t.otherKey,
    );
    const theirs = await call(
      t,
      'GET',
      '/v2/utilities/lookup-order-reference-by-custom-identifier?customIdentifier=dup-1',
      { key: t.otherKey },
    );
    assert.notEqual(theirs.data.orderReference, ref);
  });

  it('creates exactly one order for two concurrent requests with one customIdentifier', async () => {
    const body = orderBody(t, image, { customIdentifier: 'race-1' });
    const results = await Promise.all([
      call(t, 'POST', '/v2/orders', { body }),
      call(t, 'POST', '/v2/orders', { body }),
    ]);
    const codes = results.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [200, 409], results.map((r) => r.body).join(' | '));
    assert.equal(results.find((r) => r.statusCode === 409)!.data.code, 'custom_identifier_in_use');
    const list = await call(t, 'GET', '/v2/orders?limit=100');
    assert.equal(list.data.orders.filter((o: any) => o.customIdentifier === 'race-1').length, 1);
  });

  it('writes concurrent orders in shared transactions, and fails only the one at fault', async () => {
    const db = t.s.db;
    const tx = db.tx.bind(db);
    let transactions = 0;
    db.tx = ((fn: Parameters<typeof tx>[0]) => {
      transactions++;
      return tx(fn);
    }) as typeof db.tx;
    try {
      const burst = (n: number, id: (i: number) => string) =>
        Promise.all(
          Array.from({ length: n }, (_, i) =>
            call(t, 'POST', '/v2/orders', {
              body: orderBody(t, image, {
                customIdentifier: id(i),
                storeReference: store(t, i % 2 ? 'DEMO1' : 'DEMO2'),
              }),
            }),
          ),
        );
      const first = await burst(20, (i) => `batch-${i}`);
      assert.deepEqual(
        first.map((r) => r.statusCode),
        Array(20).fill(200),
      );
      // PGlite runs each statement on this thread, so requests rarely find a batch open to join.
      if (db.kind === 'postgres')
        assert.ok(transactions <= 4, `20 concurrent orders took ${transactions} transactions`);
      // A duplicate inside a batch: the batch is written again order by order.
      const results = await burst(24, (i) => `burst-${i % 23}`);
      const ok = [...first, ...results].filter((r) => r.statusCode === 200);
      assert.equal(ok.length, 20 + 23, results.map((r) => r.statusCode).join(','));
      const refused = results.filter((r) => r.statusCode !== 200);
      assert.deepEqual(
        refused.map((r) => [r.statusCode, r.data.code]),
        [[409, 'custom_identifier_in_use']],
      );
      const orders = await Promise.all(ok.map((r) => getOrder(t, r.data.order.reference)));
      const codes = orders.map((o) => o.legacyOrderCode);
      assert.equal(new Set(codes).size, codes.length, 'order numbers are unique per store');
      for (const o of orders) assert.equal(o.orderlines.length, 1);
      const events = await call(t, 'GET', '/v2/events?type=order.created&limit=100');
      const announced = new Set(events.data.events.map((e: any) => e.data.order.reference));
      for (const o of orders) assert.ok(announced.has(o.reference), `order.created for ${o.reference}`);
    } finally {
      db.tx = tx;
    }
  });

  it('replays an Idempotency-Key and refuses it for another body', async () => {
    const headers = { 'idempotency-key': 'order-key-1' };
    const first = await call(t, 'POST', '/v2/orders', { body: orderBody(t, image), headers });
    assert.equal(first.statusCode, 200);
    const replay = await call(t, 'POST', '/v2/orders', { body: orderBody(t, image), headers });
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.data.order.reference, first.data.order.reference);
    const other = await call(t, 'POST', '/v2/orders', {
      body: orderBody(t, image, { customIdentifier: 'x' }),
      headers,
    });
    expectError(other, 409, 'idempotency_key_reused');
  });

  it('takes a brand and a packaging, and refuses unknown ones', async () => {
    const brand = t.seed.organizations[0].brands[1].reference;
    const packagings = await call(t, 'GET', '/v2/packagings');
    assert.equal(packagings.statusCode, 200);
    const packaging = packagings.data.packagings[0].reference;
    const o = await getOrder(
      t,
      await createOrder(t, orderBody(t, image, { brandReference: brand, preferredPackagingReference: packaging })),
    );
    assert.equal(o.brandReference, brand);
    assert.equal(o.preferredPackagingReference, packaging);
    expectError(
      await call(t, 'POST', '/v2/orders', {
        body: orderBody(t, image, { brandReference: t.seed.organizations[1].brands[0].reference }),
      }),
      400,
      'invalid_request',
      'brandReference',
    );
    expectError(
      await call(t, 'POST', '/v2/orders', {
        body: orderBody(t, image, { preferredPackagingReference: 'Packaging_0123456789abcdefghjkmnpqrs' }),
      }),
      400,
      'invalid_request',
      'preferredPackagingReference',
    );
  });

  it('decides the shipping level from destination, value and the requested minimum', async () => {
    const level = async (patch: Record<string, unknown>) =>
      (await getOrder(t, await createOrder(t, orderBody(t, image, patch)))).shippingLevel;
    assert.equal(await level({ dropshipMinimalShippingLevel: 'express' }), 'express');
    assert.equal(await level({ dropshipMinimalShippingLevel: 'tracked' }), 'tracked');
    const packstation = {
      ...ADDRESS,
      streetname: 'Packstation 123',
      countryCode: 'DE',
      city: 'Berlin',
      zipcode: '10115',
    };
    assert.equal(await level({ dropshipAddress: packstation }), 'tracked');
    assert.equal(await level({ dropshipAddress: packstation, dropshipMinimalShippingLevel: 'express' }), 'tracked');
    assert.equal(
      await level({ dropshipAddress: { ...ADDRESS, countryCode: 'US', city: 'Boston', zipcode: '02110' } }),
      'tracked',
    );
    // 7 x 1495 = 10465 cents is above the domestic basic value limit
    assert.equal(
      await level({ orderlines: [{ productReference: p.clear, imageReference: image, quantity: 7 }] }),
      'tracked',
    );
  });

  it('queues orders of prelaunched products as preorders until launch', async () => {
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        orderlines: [
          { productReference: p.prelaunched, imageReference: image, quantity: 1 },
          { productReference: p.clear, imageReference: image, quantity: 1 },
        ],
      }),
    );
    assert.equal((await getOrder(t, ref)).status.code, 'preorder');
    t.clock.advance(60_000);
    const res = await operator(t, 'PATCH', `/catalog/products/${p.prelaunched}`, { status: 'launched' });
    assert.equal(res.statusCode, 200, res.body);
    await t.s.worker.drain();
    const o = await getOrder(t, ref);
    assert.equal(o.status.code, 'pending');
    assert.equal(o.status.modified, t.clock.now().toISOString());
  });

  it('lists orders newest first with pagination and filters', async () => {
    const all = await call(t, 'GET', '/v2/orders?limit=100');
    assert.equal(all.statusCode, 200);
    const created = all.data.orders.map((o: any) => o.legacyOrderCode);
    assert.ok(all.data.orders.length > 5);
    assert.ok(all.data.orders.every((o: any) => Array.isArray(o.orderlines) && o.prices));
    const first = await call(t, 'GET', '/v2/orders?limit=2');
    assert.equal(first.data.orders.length, 2);
    assert.ok(first.data.nextCursor);
    assert.deepEqual(
      first.data.orders.map((o: any) => o.legacyOrderCode),
      created.slice(0, 2),
    );
    const second = await call(t, 'GET', `/v2/orders?limit=2&cursor=${encodeURIComponent(first.data.nextCursor)}`);
    assert.deepEqual(
      second.data.orders.map((o: any) => o.legacyOrderCode),
      created.slice(2, 4),
    );
    const combined = await call(t, 'GET', `/v2/orders?storeReference=${store(t, 'DEMO2')}`);
    assert.ok(
      combined.data.orders.length >= 1 &&
        combined.data.orders.every((o: any) => o.storeReference === store(t, 'DEMO2')),
    );
    const pending = await call(t, 'GET', '/v2/orders?status=pending&limit=100');
    assert.ok(pending.data.orders.every((o: any) => o.status.code === 'pending'));
    const none = await call(
      t,
      'GET',
      `/v2/orders?createdAfter=${encodeURIComponent(new Date(Date.now() + 86400_000 * 365).toISOString())}`,
    );
    assert.deepEqual(none.data.orders, []);
    expectError(await call(t, 'GET', '/v2/orders?cursor=forged'), 400, 'invalid_cursor');
    expectError(await call(t, 'GET', '/v2/orders?status=lost'), 400, 'invalid_request', 'status');
    expectError(
      await call(t, 'GET', `/v2/orders?storeReference=${store(t, 'OTHER1')}`),
      400,
      'invalid_request',
      'storeReference',
    );
    const theirs = await call(t, 'GET', '/v2/orders', { key: t.otherKey });
    assert.ok(theirs.data.orders.every((o: any) => o.storeReference === store(t, 'OTHER1')));
  });

  it('answers 404 for unknown, malformed and foreign orders and addresses', async () => {
    const foreign = (await call(t, 'GET', '/v2/orders', { key: t.otherKey })).data.orders[0];
    for (const url of [
      '/v2/orders/Order_0123456789abcdefghjkmnpqrs',
      '/v2/orders/bogus',
      `/v2/orders/${foreign.reference}`,
      `/v2/addresses/${foreign.dropshipAddressReference}`,
      '/v2/addresses/Address_x',
    ]) {
      expectError(await call(t, 'GET', url), 404, 'not_found');
    }
  });
});

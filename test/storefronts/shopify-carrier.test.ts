import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { SendcloudStandIn } from '../support/sendcloud-standin.ts';
import { ShopifyStandIn } from '../support/shopify-standin.ts';
import { products, ship } from '../orders/helpers.ts';
import { connectShop } from './helpers.ts';

const SECRET = 'shopify-app-secret';
const SHOP = 'case-lovers.myshopify.com';

describe('a Shopify order shipped through Sendcloud', () => {
  let t: TestApp;
  let shopify: ShopifyStandIn;
  let sc: SendcloudStandIn;
  before(async () => {
    shopify = await new ShopifyStandIn(SECRET).start();
    sc = await new SendcloudStandIn().start();
    t = await createTestApp({
      env: { ...sc.env, SHOPIFY_API_KEY: 'app-key', SHOPIFY_API_SECRET: SECRET },
      shopifyFetch: shopify.fetch,
    });
  });
  after(async () => {
    await t.close();
    await shopify.stop();
    await sc.stop();
  });

  it("gets the carrier's tracking number and page on its fulfillment once the parcel is announced", async () => {
    const store = await connectShop(t, shopify, SHOP);
    await t.s.worker.drain();
    shopify.fulfillmentOrders.push({
      id: 'gid://shopify/FulfillmentOrder/7001',
      orderId: 'gid://shopify/Order/5300000000777',
      orderName: '#10777',
      status: 'FULFILLMENT_REQUESTED',
      lines: [{ sku: products(t).protector, quantity: 1 }],
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
      deliveryMethod: { methodType: 'SHIPPING', presentedName: 'Tracked', serviceCode: 'TRACKED' },
    });
    const raw = JSON.stringify({ kind: 'FULFILLMENT_REQUEST' });
    const note = await t.app.inject({
      method: 'POST',
      url: '/integrations/shopify/fulfillment_order_notification',
      headers: shopify.webhookHeaders('fulfillment_order_notification', SHOP, raw),
      payload: raw,
    });
    assert.equal(note.statusCode, 200, note.body);
    await t.s.worker.drain();
    const [order] = (await call(t, 'GET', `/v2/orders?storeReference=${store}`)).data.orders;
    assert.ok(order, 'the fulfillment request became an order');
    await call(t, 'POST', `/v2/test-helpers/orders/${order.reference}/start-production`);

    // Sendcloud is down when the parcel ships: the fulfillment is made without a number first.
    sc.failures.push(503);
    const shipment = await ship(t, [order.reference]);
    await t.s.worker.drain();
    const created = shopify.calls.filter((c) => c.operation === 'FulfillmentCreate');
    assert.equal(created.length, 1);
    assert.equal(created[0].variables.fulfillment.trackingInfo.number, undefined, 'no number invented');
    assert.equal(shopify.calls.filter((c) => c.operation === 'FulfillmentTrackingInfoUpdate').length, 0);

    // The announce job's retry comes due; the carrier's number then reaches Shopify.
    await t.db.query(`UPDATE jobs SET run_at = '2000-01-01' WHERE kind = 'shipment.announce' AND status = 'pending'`);
    await t.s.worker.drain();
    const s = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.equal(s.trackingNumber, sc.byReference(shipment)!.trackingNumber);
    const updates = shopify.calls.filter((c) => c.operation === 'FulfillmentTrackingInfoUpdate');
    assert.equal(updates.length, 1);
    assert.deepEqual(updates[0].variables.trackingInfoInput, {
      number: s.trackingNumber,
      company: 'PostNL',
      url: s.trackingUrl,
    });
    assert.equal(updates[0].variables.notifyCustomer, true);
    assert.deepEqual(shopify.invalid, [], 'every document matched the Admin schema');
    assert.deepEqual(sc.invalid, []);
  });
});

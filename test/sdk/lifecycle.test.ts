import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiError } from '../../packages/sdk/src/index.ts';
import {
  ADDRESS,
  type SdkServer,
  freshPng,
  requireOperations,
  seedProduct,
  seedStore,
  startSdkServer,
} from './helpers.ts';

// The order lifecycle through the SDK against a running server: quote, order, cancel, address
// change, production, shipment, claims. Steps whose endpoints are not built yet are skipped.
let server: SdkServer;
before(async () => {
  server = await startSdkServer();
});
after(async () => {
  await server?.close();
});

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('expected an ApiError'),
    (e: unknown) => {
      assert.ok(e instanceof ApiError, String(e));
      return e;
    },
  );

async function newOrder(quantity = 2): Promise<string> {
  const image = (await server.client.images.upload(await freshPng())).image.reference;
  const { order } = await server.client.orders.create({
    order: {
      storeReference: seedStore(server.t, 'DEMO1'),
      shippingKind: 'dropship',
      dropshipAddress: ADDRESS,
      dropshipMinimalShippingLevel: 'tracked',
      orderlines: [
        { productReference: seedProduct(server.t, 'iPhone 15 Clear Case'), imageReference: image, quantity },
      ],
    },
  });
  return order.reference;
}

test('quote: options for dropship, none for combined, typed errors', async () => {
  requireOperations(server, 'quoteShipping');
  const quote = (shippingKind: 'dropship' | 'combined', store = 'DEMO1') =>
    server.client.orders.quote({
      quote: {
        storeReference: seedStore(server.t, store),
        shippingKind,
        ...(shippingKind === 'dropship' ? { dropshipAddress: ADDRESS } : {}),
        orderlines: [{ productReference: seedProduct(server.t, 'iPhone 15 Clear Case'), quantity: 2 }],
      },
    });
  const { shippingOptions } = await quote('dropship');
  assert.ok(shippingOptions.length > 0);
  assert.equal(shippingOptions[0].level, 'basic');
  assert.ok(shippingOptions.every((o) => Number.isInteger(o.price)));
  assert.deepEqual((await quote('combined')).shippingOptions, []);
  const err = await errorOf(quote('dropship', 'DEMOSHOP'));
  assert.equal(err.status, 403);
  assert.equal(err.code, 'store_not_writable_via_api');
});

test('order: create, get, look up, cancel, change address', async () => {
  requireOperations(
    server,
    'createOrder',
    'getOrder',
    'cancelOrderlines',
    'changeDropshipAddress',
    'getAddress',
    'lookupOrderByCustomIdentifier',
  );
  const image = (await server.client.images.upload(await freshPng())).image.reference;
  const customIdentifier = `sdk-${Date.now()}`;
  const { order: created } = await server.client.orders.create({
    order: {
      storeReference: seedStore(server.t, 'DEMO1'),
      shippingKind: 'dropship',
      customIdentifier,
      dropshipAddress: ADDRESS,
      orderlines: [
        {
          productReference: seedProduct(server.t, 'iPhone 15 Clear Case'),
          imageReference: image,
          quantity: 3,
          annotations: [{ key: 'k', value: 'v' }],
        },
      ],
    },
  });
  const { order } = await server.client.orders.get(created.reference);
  assert.equal(order.status.code, 'pending');
  assert.equal(order.orderlines[0].quantity, 3);
  assert.deepEqual(order.orderlines[0].annotations, [{ key: 'k', value: 'v' }]);
  assert.equal(
    (await server.client.orders.lookupByCustomIdentifier({ customIdentifier })).orderReference,
    created.reference,
  );

  const missing = await errorOf(
    server.client.orders.create({
      order: {
        storeReference: seedStore(server.t, 'DEMO1'),
        shippingKind: 'dropship',
        orderlines: [
          { productReference: seedProduct(server.t, 'iPhone 15 Clear Case'), imageReference: image, quantity: 1 },
        ],
      },
    }),
  );
  assert.equal(missing.status, 400);
  assert.equal(missing.code, 'missing_address');

  assert.equal(
    await server.client.orders.cancel(created.reference, { orderlines: [{ index: 1, canceledQuantity: 1 }] }),
    undefined,
  );
  assert.equal(
    await server.client.orders.cancel(created.reference, { orderlines: [{ index: 1, canceledQuantity: 1 }] }),
    undefined,
    'repeating cancels nothing more',
  );
  assert.equal((await server.client.orders.get(created.reference)).order.orderlines[0].canceledQuantity, 1);
  const below = await errorOf(
    server.client.orders.cancel(created.reference, { orderlines: [{ index: 1, canceledQuantity: 0 }] }),
  );
  assert.equal(below.status, 409);
  assert.equal(below.code, 'canceled_quantity_below_current');

  const before = order.dropshipAddressReference;
  await server.client.orders.changeDropshipAddress(created.reference, {
    dropshipAddress: { ...ADDRESS, city: 'Utrecht', zipcode: '3511 AA' },
  });
  const after = (await server.client.orders.get(created.reference)).order.dropshipAddressReference;
  assert.ok(after && after !== before);
  const { address } = await server.client.addresses.get(after);
  assert.equal(address.city, 'Utrecht');
});

test('production and shipment through the test helpers', async () => {
  requireOperations(server, 'testStartProduction', 'testCreateShipment', 'getShipment', 'cancelOrderlines');
  const ref = await newOrder();
  assert.equal(await server.client.testHelpers.startProduction(ref), undefined);
  const late = await errorOf(server.client.orders.cancel(ref, { orderlines: [{ index: 1, canceledQuantity: 2 }] }));
  assert.equal(late.code, 'already_in_production');
  const { shipment } = await server.client.testHelpers.createShipment({ shipment: { orderReferences: [ref] } });
  const got = (await server.client.shipments.get(shipment.reference)).shipment;
  assert.deepEqual(
    got.orders.map((o) => o.reference),
    [ref],
  );
  assert.equal(got.level, 'tracked');
  assert.ok(got.trackingUrl && got.trackingNumber);
  assert.equal((await server.client.orders.get(ref)).order.status.code, 'shipped');
  const again = await errorOf(server.client.testHelpers.startProduction(ref));
  assert.equal(again.status, 409);
});

test('claims: evidence, item-issues claim, list, decide, retract, package missing', async () => {
  requireOperations(
    server,
    'uploadEvidence',
    'listClaimcategories',
    'claimItemIssues',
    'claimPackageMissing',
    'getClaim',
    'listClaims',
    'retractClaim',
    'testDecideClaim',
    'testStartProduction',
    'testCreateShipment',
  );
  const ship = async (daysAgo: number) => {
    const ref = await newOrder();
    await server.client.testHelpers.startProduction(ref);
    const shippedAt = new Date(server.t.clock.now().getTime() - daysAgo * 86_400_000).toISOString();
    const { shipment } = await server.client.testHelpers.createShipment({
      shipment: { orderReferences: [ref], shippedAt },
    });
    return { order: ref, shipment: shipment.reference };
  };
  const { claimcategories } = await server.client.claimcategories.list();
  const damaged =
    claimcategories.find((c) => !/package missing/i.test(c.name) && c.evidenceRequired) ??
    claimcategories.find((c) => !/package missing/i.test(c.name));
  assert.ok(damaged, 'an item-issue category');
  const { evidence } = await server.client.evidence.upload(await freshPng());

  const first = await ship(10);
  const { claim } = await server.client.claims.createItemIssues({
    claim: {
      shipmentReference: first.shipment,
      orderReference: first.order,
      comment: 'cracked',
      claimlines: [
        {
          orderlineIndex: 1,
          quantity: 1,
          claimcategoryReference: damaged.reference,
          evidenceReferences: [evidence.reference],
        },
      ],
    },
  });
  const detail = (await server.client.claims.get(claim.reference)).claim;
  assert.equal(detail.status, 'pending');
  assert.equal(detail.orderReference, first.order);
  const listed: string[] = [];
  for await (const c of server.client.claims.list({ limit: 1 })) listed.push(c.reference);
  assert.ok(listed.includes(claim.reference));

  const over = await errorOf(
    server.client.claims.createItemIssues({
      claim: {
        shipmentReference: first.shipment,
        orderReference: first.order,
        claimlines: [
          {
            orderlineIndex: 1,
            quantity: 5,
            claimcategoryReference: damaged.reference,
            evidenceReferences: [evidence.reference],
          },
        ],
      },
    }),
  );
  assert.equal(over.status, 400);

  await server.client.testHelpers.decideClaim(claim.reference, {
    decision: {
      status: 'resolved',
      refundShippingCosts: false,
      comment: 'replaced',
      claimlines: [
        { orderlineIndex: 1, replacementQuantity: 1, refundQuantity: 0, rejectionQuantity: 0, comment: 'ok' },
      ],
    },
  });
  assert.equal((await server.client.claims.get(claim.reference)).claim.status, 'resolved');
  const notPending = await errorOf(server.client.claims.retract(claim.reference));
  assert.equal(notPending.status, 409);
  assert.equal(notPending.code, 'claim_not_pending');

  const second = await ship(10);
  const { claim: missing } = await server.client.claims.createPackageMissing({
    claim: { shipmentReference: second.shipment },
  });
  assert.equal(await server.client.claims.retract(missing.reference), undefined);
  assert.equal((await server.client.claims.get(missing.reference)).claim.status, 'retracted');

  const recent = await ship(0);
  const tooRecent = await errorOf(
    server.client.claims.createPackageMissing({ claim: { shipmentReference: recent.shipment } }),
  );
  assert.equal(tooRecent.status, 409);
  assert.equal(tooRecent.code, 'shipment_too_recent');
  assert.match(tooRecent.message, /\d{4}-\d{2}-\d{2}/);
});

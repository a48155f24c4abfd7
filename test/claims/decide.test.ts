import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, getOrder, products, store } from '../orders/helpers.ts';
import {
  DAY,
  SHIPPED,
  at,
  categories,
  decide,
  decision,
  expectError,
  getClaim,
  itemClaim,
  packageMissing,
  shippedOrder,
} from './helpers.ts';

describe('claim decisions', () => {
  let t: TestApp;
  let cat: Record<string, string>;
  before(async () => {
    t = await createTestApp();
    cat = await categories(t);
  });
  after(() => t.close());

  it('replaces to the shipment destination, locks the address and counts the order as replaced', async () => {
    const { shipment, order, claim, product, image } = await (async () => {
      const s = await shippedOrder(t, { quantities: [2, 1] });
      t.clock.set(at(SHIPPED, 10 * DAY));
      const res = await packageMissing(t, s.shipment);
      assert.equal(res.statusCode, 200, res.body);
      return { ...s, claim: res.data.claim.reference as string };
    })();
    t.clock.set(at(SHIPPED, 12 * DAY));
    const res = await decide(
      t,
      claim,
      decision(
        'resolved',
        [
          [1, 2, 0, 0],
          [2, 0, 1, 0],
        ],
        { refundShippingCosts: true, comment: 'Lost by the carrier' },
      ),
    );
    assert.equal(res.statusCode, 204, res.body);

    const c = await getClaim(t, claim);
    assert.equal(c.status, 'resolved');
    assert.deepEqual(c.decision, {
      decided: at(SHIPPED, 12 * DAY).toISOString(),
      refundShippingCosts: true,
      comment: 'Lost by the carrier',
    });
    assert.deepEqual(
      c.claimlines.map((l: any) => l.decision),
      [
        { replacementQuantity: 2, refundQuantity: 0, rejectionQuantity: 0, comment: 'line 1' },
        { replacementQuantity: 0, refundQuantity: 1, rejectionQuantity: 0, comment: 'line 2' },
      ],
    );
    assert.equal(c.replacementOrderReferences.length, 1);
    const replacement = await getOrder(t, c.replacementOrderReferences[0]);
    assert.equal(replacement.replacementForClaimReference, claim);
    assert.deepEqual(
      replacement.orderlines.map((l: any) => [l.productReference, l.imageReference, l.quantity]),
      [[product, image, 2]],
    );
    const address = await call(t, 'GET', `/v2/addresses/${replacement.dropshipAddressReference}`);
    assert.equal(address.statusCode, 200, address.body);
    assert.equal(address.data.address?.city ?? address.data.city, ADDRESS.city);

    expectError(
      await call(t, 'PUT', `/v2/orders/${replacement.reference}/dropship-address`, {
        body: { dropshipAddress: { ...ADDRESS, city: 'Utrecht' } },
      }),
      409,
      'replacement_address_locked',
    );
    expectError(await packageMissing(t, shipment), 409, 'order_already_replaced', order);
    expectError(
      await decide(
        t,
        claim,
        decision('rejected', [
          [1, 0, 0, 2],
          [2, 0, 0, 1],
        ]),
      ),
      409,
      'claim_not_pending',
    );
    expectError(await call(t, 'POST', `/v2/claims/${claim}/retract`), 409, 'claim_not_pending');
  });

  it('rejects when nothing is replaced or refunded, and checks the quantities', async () => {
    const { claim } = await itemClaim(
      t,
      cat,
      [3, 2],
      [
        [1, 2],
        [2, 1],
      ],
    );
    expectError(
      await decide(
        t,
        claim,
        decision('rejected', [
          [1, 0, 0, 1],
          [2, 0, 0, 1],
        ]),
      ),
      400,
      'decision_quantity_mismatch',
    );
    expectError(
      await decide(t, claim, decision('rejected', [[1, 0, 0, 2]])),
      400,
      'invalid_request',
      'every claimed line',
    );
    expectError(
      await decide(
        t,
        claim,
        decision('rejected', [
          [1, 0, 0, 2],
          [3, 0, 0, 1],
        ]),
      ),
      400,
      'invalid_request',
      'not a line',
    );
    expectError(
      await decide(
        t,
        claim,
        decision('rejected', [
          [1, 0, 0, 2],
          [1, 0, 0, 2],
        ]),
      ),
      400,
      'invalid_request',
    );
    expectError(
      await decide(
        t,
        claim,
        decision('resolved', [
          [1, 0, 0, 2],
          [2, 0, 0, 1],
        ]),
      ),
      400,
      'invalid_request',
      'status',
    );
    expectError(
      await decide(
        t,
        claim,
        decision('rejected', [
          [1, 0, 1, 1],
          [2, 0, 0, 1],
        ]),
      ),
      400,
      'invalid_request',
      'status',
    );
    expectError(
      await decide(t, claim, {
        ...decision('rejected', [
          [1, 0, 0, 2],
          [2, 0, 0, 1],
        ]),
        extra: true,
      }),
      400,
      'invalid_request',
      'extra',
    );
    expectError(
      await decide(
        t,
        claim,
        decision('rejected', [
          [1, -1, 0, 3],
          [2, 0, 0, 1],
        ]),
      ),
      400,
      'invalid_request',
    );
    assert.equal((await getClaim(t, claim)).status, 'pending', 'nothing was decided by the failures');
    assert.equal(
      (
        await decide(
          t,
          claim,
          decision('rejected', [
            [1, 0, 0, 2],
            [2, 0, 0, 1],
          ]),
        )
      ).statusCode,
      204,
    );
    const c = await getClaim(t, claim);
    assert.equal(c.status, 'rejected');
    assert.deepEqual(c.replacementOrderReferences, []);
    assert.equal(c.decision.refundShippingCosts, false);
  });

  it('claims every order of a combined shipment and replaces each order', async () => {
    t.clock.set(at(SHIPPED, -DAY));
    const protector = products(t).protector;
    const body = (quantity: number) => ({
      order: {
        storeReference: store(t, 'DEMO2'),
        shippingKind: 'combined',
        orderlines: [{ productReference: protector, quantity }],
      },
    });
    const first = await createOrder(t, body(2));
    const second = await createOrder(t, body(1));
    for (const o of [first, second])
      assert.equal((await call(t, 'POST', `/v2/test-helpers/orders/${o}/start-production`)).statusCode, 204);
    t.clock.set(SHIPPED);
    const shipped = await call(t, 'POST', '/v2/test-helpers/shipments', {
      body: { shipment: { orderReferences: [first, second], shippedAt: SHIPPED } },
    });
    assert.equal(shipped.statusCode, 200, shipped.body);
    t.clock.set(at(SHIPPED, 20 * DAY));
    const res = await packageMissing(t, shipped.data.shipment.reference);
    assert.equal(res.statusCode, 200, res.body);
    const claim = res.data.claim.reference;
    const c = await getClaim(t, claim);
    assert.equal(c.orderReference, first);
    assert.deepEqual(
      c.claimlines.map((l: any) => [l.orderReference, l.orderlineIndex, l.quantity, l.imageReference]),
      [
        [first, 1, 2, null],
        [second, 1, 1, null],
      ],
    );
    expectError(
      await decide(
        t,
        claim,
        decision('resolved', [
          [1, 2, 0, 0],
          [1, 1, 0, 0],
        ]),
      ),
      400,
      'invalid_request',
      'orderReference',
    );
    const d = decision('resolved', [
      [1, 2, 0, 0],
      [1, 1, 0, 0],
    ]);
    d.claimlines = d.claimlines.map((l, i) => ({ ...l, orderReference: [first, second][i] }));
    assert.equal((await decide(t, claim, d)).statusCode, 204);
    const replacements = (await getClaim(t, claim)).replacementOrderReferences;
    assert.equal(replacements.length, 2);
    const orders = await Promise.all(replacements.map((r: string) => getOrder(t, r)));
    assert.deepEqual(
      orders.map((o) => [o.shippingKind, o.orderlines[0].quantity, o.replacementForClaimReference]),
      [
        ['dropship', 2, claim],
        ['dropship', 1, claim],
      ],
    );
  });

  it('lets operators decide in production only through the operator API', async () => {
    const { claim } = await itemClaim(t, cat, [2], [[1, 2]]);
    expectError(
      await operator(t, 'POST', '/claims/Claim_0123456789abcdefghjkmnpqrs/decide', {
        decision: decision('rejected', [[1, 0, 0, 2]]),
      }),
      404,
      'not_found',
    );
    const res = await operator(t, 'POST', `/claims/${claim}/decide`, {
      decision: decision('resolved', [[1, 1, 0, 1]]),
    });
    assert.equal(res.statusCode, 204, res.body);
    const c = await getClaim(t, claim);
    assert.equal(c.status, 'resolved');
    assert.equal(c.replacementOrderReferences.length, 1);
  });
});

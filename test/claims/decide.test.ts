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
  itemIssues,
  packageMissing,
  shippedOrder,
} from './helpers.ts';

describe('claim decisions, retraction and the list', () => {
  let t: TestApp;
  let cat: Record<string, string>;
  before(async () => {
    t = await createTestApp();
    cat = await categories(t);
  });
  after(() => t.close());

  const itemClaim = async (quantities: number[], claimlines: Array<[number, number]>) => {
    const s = await shippedOrder(t, { quantities });
    t.clock.set(at(SHIPPED, 10 * DAY));
    const res = await itemIssues(t, {
      shipmentReference: s.shipment,
      orderReference: s.order,
      claimlines: claimlines.map(([orderlineIndex, quantity]) => ({
        orderlineIndex,
        quantity,
        claimcategoryReference: cat['Wrong item'],
      })),
    });
    assert.equal(res.statusCode, 200, res.body);
    return { ...s, claim: res.data.claim.reference as string };
  };

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

  it('retracts a pending claim once', async () => {
    const { claim, shipment } = await itemClaim([1], [[1, 1]]);
    expectError(await packageMissing(t, shipment), 409, 'shipment_already_claimed');
    expectError(
      await call(t, 'POST', `/v2/claims/${claim}/retract`, { key: t.readOnlyKey }),
      403,
      'insufficient_permissions',
    );
    expectError(await call(t, 'POST', `/v2/claims/${claim}/retract`, { key: t.otherKey }), 404, 'not_found');
    const res = await call(t, 'POST', `/v2/claims/${claim}/retract`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    expectError(await call(t, 'POST', `/v2/claims/${claim}/retract`), 409, 'claim_not_pending');
    const c = await getClaim(t, claim);
    assert.equal(c.status, 'retracted');
    assert.equal(c.retracted, t.clock.now().toISOString());
    assert.equal(c.decision, null);
    expectError(await decide(t, claim, decision('rejected', [[1, 0, 0, 1]])), 409, 'claim_not_pending');
    // a retracted claim was withdrawn: the shipment can now be claimed as missing
    assert.equal((await packageMissing(t, shipment)).statusCode, 200);
  });

  it('keeps claims of other organizations out', async () => {
    const { claim } = await itemClaim([1], [[1, 1]]);
    expectError(await call(t, 'GET', `/v2/claims/${claim}`, { key: t.otherKey }), 404, 'not_found');
    expectError(await decide(t, claim, decision('rejected', [[1, 0, 0, 1]]), t.otherKey), 404, 'not_found');
    for (const bad of ['nope', 'Claim_0123456789abcdefghjkmnpqrs', 'Order_0123456789abcdefghjkmnpqrs', 'Claim_UPPER']) {
      expectError(await call(t, 'GET', `/v2/claims/${bad}`), 404, 'not_found');
      expectError(await call(t, 'POST', `/v2/claims/${bad}/retract`), 404, 'not_found');
    }
    const other = await call(t, 'GET', '/v2/claims?limit=100', { key: t.otherKey });
    assert.equal(other.statusCode, 200);
    assert.ok(!other.data.claims.some((c: any) => c.reference === claim));
  });

  it('lists open claims and those closed within 14 days, newest first, paginated', async () => {
    const a = await itemClaim([1], [[1, 1]]);
    t.clock.advance(1000);
    const b = await itemClaim([1], [[1, 1]]);
    t.clock.advance(1000);
    const c = await itemClaim([1], [[1, 1]]);
    const closedAt = at(SHIPPED, 10 * DAY + 5000);
    t.clock.set(closedAt);
    assert.equal((await call(t, 'POST', `/v2/claims/${b.claim}/retract`)).statusCode, 204);
    assert.equal((await decide(t, c.claim, decision('resolved', [[1, 0, 1, 0]]))).statusCode, 204);

    const refs = async (query = '') => {
      const res = await call(t, 'GET', `/v2/claims${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.data.claims
        .map((x: any) => x.reference)
        .filter((r: string) => [a.claim, b.claim, c.claim].includes(r));
    };
    t.clock.set(at(closedAt.toISOString(), 14 * DAY - 1000));
    assert.deepEqual(await refs('?limit=100'), [c.claim, b.claim, a.claim]);
    t.clock.set(at(closedAt.toISOString(), 14 * DAY + 1000));
    assert.deepEqual(await refs('?limit=100'), [a.claim], 'closed more than 14 days ago');
    assert.deepEqual(
      await refs(`?limit=100&closedAfter=${encodeURIComponent(at(closedAt.toISOString(), -1000).toISOString())}`),
      [c.claim, b.claim, a.claim],
    );
    assert.deepEqual(await refs(`?limit=100&closedAfter=${encodeURIComponent('2026-06-11T10:00:10+02:00')}`), [
      c.claim,
      b.claim,
      a.claim,
    ]);
    expectError(await call(t, 'GET', '/v2/claims?closedAfter=yesterday'), 400, 'invalid_request', 'closedAfter');
    expectError(await call(t, 'GET', '/v2/claims?cursor=abc'), 400, 'invalid_cursor');
    expectError(await call(t, 'GET', '/v2/claims?sort=asc'), 400, 'invalid_request');

    const full = await call(t, 'GET', '/v2/claims?limit=100&closedAfter=2020-01-01T00:00:00Z');
    const item = full.data.claims.find((x: any) => x.reference === c.claim);
    assert.deepEqual(Object.keys(item).sort(), [
      'claimcategories',
      'created',
      'decided',
      'orderReference',
      'reference',
      'retracted',
      'status',
    ]);
    assert.deepEqual(item.claimcategories, [{ reference: cat['Wrong item'], name: 'Wrong item' }]);
    assert.equal(item.status, 'resolved');
    assert.equal(item.decided, closedAt.toISOString());
    assert.equal(item.retracted, null);
    assert.equal(item.orderReference, c.order);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await call(
        t,
        'GET',
        `/v2/claims?limit=2&closedAfter=2020-01-01T00:00:00Z${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.data.claims.length <= 2);
      if (res.data.claims.length < 2) assert.equal(res.data.nextCursor, null);
      seen.push(...res.data.claims.map((x: any) => x.reference));
      cursor = res.data.nextCursor;
    } while (cursor);
    assert.deepEqual(
      seen,
      full.data.claims.map((x: any) => x.reference),
    );
    assert.equal(new Set(seen).size, seen.length);
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

  it('records claim.created and claim.updated events with the claim as GET returns it', async () => {
    const { claim } = await itemClaim([1], [[1, 1]]);
    assert.equal((await call(t, 'POST', `/v2/claims/${claim}/retract`)).statusCode, 204);
    const rows = await t.db.query<{ type: string; data: any }>(
      `SELECT type, data FROM events WHERE data->'claim'->>'reference' = $1 ORDER BY created_at, type`,
      [claim],
    );
    assert.deepEqual(
      rows.map((r) => [r.type, r.data.claim.status]),
      [
        ['claim.created', 'pending'],
        ['claim.updated', 'retracted'],
      ],
    );
    assert.deepEqual(rows[1].data.claim, await getClaim(t, claim));
  });

  it('lets operators decide in production only through the operator API', async () => {
    const { claim } = await itemClaim([2], [[1, 2]]);
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

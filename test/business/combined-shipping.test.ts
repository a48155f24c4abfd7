import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CombinedShare, splitShipping } from '../../src/modules/billing/combined-shipping.ts';
import { parcelOf, priceAt } from '../../src/modules/shipping/data.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createOrder, products, store } from '../orders/helpers.ts';

const share = (id: string, items: number, replacement = false): CombinedShare => ({
  id,
  items,
  customIdentifier: null,
  replacement,
});

describe('the split of a combined shipment over its orders', () => {
  const cases: Array<[string, number, CombinedShare[], number[]]> = [
    ['in proportion to the items', 1000, [share('a', 2), share('b', 1), share('c', 1)], [500, 250, 250]],
    [
      'the cent left goes to the order listed first',
      1000,
      [share('a', 1), share('b', 1), share('c', 1)],
      [334, 333, 333],
    ],
    ['the largest remainder wins the cent', 999, [share('a', 1), share('b', 2)], [333, 666]],
    [
      'two cents left: the two largest remainders',
      1001,
      [share('a', 1), share('b', 1), share('c', 1)],
      [334, 334, 333],
    ],
    ['a replacement rides free', 900, [share('a', 1), share('r', 5, true), share('b', 2)], [300, 0, 600]],
    ['an order without items pays nothing', 700, [share('a', 0), share('b', 3)], [0, 700]],
    ['nothing carried, nothing paid', 700, [share('a', 0), share('r', 2, true)], [0, 0]],
    ['one order pays it all', 695, [share('a', 7)], [695]],
  ];
  for (const [what, total, orders, expected] of cases) {
    it(what, () => {
      const got = splitShipping(total, orders);
      assert.deepEqual(
        orders.map((o) => got.get(o.id)),
        expected,
      );
    });
  }
  it('always adds up to the shipment price, whatever the items', () => {
    for (let total = 1; total < 2000; total += 37) {
      for (const items of [
        [1, 1, 1, 1, 1, 1, 1],
        [3, 5, 11],
        [1, 99],
        [2, 2, 3],
      ]) {
        const orders = items.map((n, i) => share(`o${i}`, n));
        const got = [...splitShipping(total, orders).values()];
        assert.equal(
          got.reduce((s, c) => s + c, 0),
          total,
          `${total} over ${items}`,
        );
        assert.ok(got.every((c) => c >= 0));
      }
    }
  });
});

describe('combined orders pay one shipping charge per shipment (production)', () => {
  let t: TestApp;
  let acc: string;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    t.clock.set('2026-10-05T09:00:00.000Z');
    acc = (await t.db.query<{ account_id: string }>("SELECT account_id FROM stores WHERE code = 'DEMO2'"))[0]
      .account_id;
  });
  after(() => t.close());

  const combined = (quantity: number, customIdentifier: string) =>
    createOrder(t, {
      order: {
        storeReference: store(t, 'DEMO2'),
        shippingKind: 'combined',
        customIdentifier,
        orderlines: [{ productReference: products(t).protector, quantity }],
      },
    });
  const charges = async (orderRef: string) =>
    t.db.query<{ amount_cents: string; source: string; detail: any }>(
      "SELECT amount_cents, source, detail FROM ledger_entries WHERE kind = 'charge' AND order_id = $1 ORDER BY seq",
      [orderRef],
    );
  const order = async (ref: string) => (await call(t, 'GET', `/v2/orders/${ref}`)).data.order;

  it('charges the shipment once, split by items, on an invoice line naming the shipment', async () => {
    const a = await combined(1, 'combined-a');
    const b = await combined(3, 'combined-b');
    for (const ref of [a, b])
      assert.equal((await operator(t, 'POST', `/orders/${ref}/start-production`)).statusCode, 204);
    for (const ref of [a, b]) {
      assert.equal((await charges(ref)).length, 1, 'production start charges the products only');
      assert.equal((await order(ref)).prices.shipping, 0);
    }
    const before = (await call(t, 'GET', `/v2/accounts/${acc}`)).data.account.balance;

    const shipped = await operator(t, 'POST', '/shipments', {
      orderReferences: [a, b],
      carrier: 'PostNL',
      trackingNumber: '3SABCD1234567',
    });
    assert.equal(shipped.statusCode, 200, shipped.body);
    const shipment = shipped.data.shipment.reference;

    // The one parcel's price: every item of both orders to the store's combined address (DE).
    const [{ unit_price_cents, unit_weight_grams }] = await t.db.query<{
      unit_price_cents: number;
      unit_weight_grams: number;
    }>('SELECT unit_price_cents, unit_weight_grams FROM orderlines WHERE order_id = $1', [a]);
    const price = priceAt(
      parcelOf([{ unit_price_cents, unit_weight_grams, quantity: 4, canceled_quantity: 0 }], 'DE', false),
      'tracked',
    )!;
    assert.ok(price > 0);
    const shares = splitShipping(price, [share(a, 1), share(b, 3)]);

    for (const ref of [a, b]) {
      const rows = await charges(ref);
      assert.equal(rows.length, 2, 'one shipping charge per order');
      const s = rows[1];
      assert.equal(Number(s.amount_cents), -shares.get(ref)!);
      assert.equal(s.source, `${shipment}:${ref}`);
      assert.deepEqual(s.detail.shipment, { reference: shipment, totalCents: price, orders: 2 });
      assert.equal((await order(ref)).prices.shipping, shares.get(ref), 'the order shows its share');
    }
    const after = (await call(t, 'GET', `/v2/accounts/${acc}`)).data.account.balance;
    assert.equal(before - after, price, 'the account pays the shipment once');

    // Booked once per shipment and order, whatever runs twice.
    await t.s.db.tx(async (tx) => {
      const [o] = await t.s.orders.ordersByIds(tx, null, [a]);
      await t.s.billing.chargeCombinedShipment(tx, {
        shipmentId: shipment,
        organizationId: o.organizationId,
        storeId: o.storeId,
        level: 'tracked',
        totalCents: price,
        shipTo: { country: 'DE', postcode: '50667' },
        orders: [share(a, 1), share(b, 3)],
      });
    });
    assert.equal((await charges(a)).length, 2);

    t.clock.set('2026-11-01T03:00:00.000Z');
    const issued = await operator(t, 'POST', '/invoices/issue', { month: '2026-10' });
    assert.equal(issued.statusCode, 200, issued.body);
    const inv = issued.data.invoices.find((i: any) => i.accountReference === acc);
    const shipping = inv.lines.filter((l: any) => l.kind === 'shipping');
    assert.deepEqual(
      shipping.map((l: any) => [l.orderReference, l.netCents, l.shipmentReference]).sort(),
      [
        [a, shares.get(a), shipment],
        [b, shares.get(b), shipment],
      ].sort(),
    );
    // Each order's block holds its goods and its shipping share together.
    const orderOfLine = inv.lines.map((l: any) => l.orderReference).filter((r: string | null) => r === a || r === b);
    assert.deepEqual(
      orderOfLine,
      [...orderOfLine].sort((x: string, y: string) => orderOfLine.indexOf(x) - orderOfLine.indexOf(y)),
      'the lines of one order are together',
    );
    for (const l of shipping) {
      assert.match(
        l.description,
        new RegExp(`share of combined shipment ${shipment} \\(2 orders, EUR ${(price / 100).toFixed(2)} in all\\)`),
      );
      assert.ok(l.order.customIdentifier.startsWith('combined-'));
      // Shipping follows the goods: the same treatment as the order's items.
      const item = inv.lines.find((i: any) => i.kind === 'item' && i.orderReference === l.orderReference);
      assert.deepEqual(l.vat, item.vat);
    }
  });
});

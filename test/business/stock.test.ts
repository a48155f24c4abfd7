import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, products, store, uploadImage } from '../orders/helpers.ts';

const protectorOrder = (t: TestApp, quantity: number) => ({
  order: {
    storeReference: store(t, 'DEMO1'),
    shippingKind: 'dropship',
    dropshipAddress: ADDRESS,
    orderlines: [{ productReference: products(t).protector, quantity }],
  },
});

describe('stock moves with orders', () => {
  let t: TestApp;
  let item: string;
  const available = async () => {
    const res = await call(t, 'GET', `/v2/products/${products(t).protector}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.data.product.availableQuantity as number;
  };
  const quantities = async () =>
    (
      await t.db.query<{ logical_quantity: number; physical_quantity: number }>(
        'SELECT logical_quantity, physical_quantity FROM items WHERE id = $1',
        [item],
      )
    )[0];
  const setStock = async (logical: number, physical = logical) => {
    const res = await operator(t, 'PUT', `/catalog/items/${item}/stock`, {
      logicalQuantity: logical,
      physicalQuantity: physical,
    });
    assert.equal(res.statusCode, 200, res.body);
  };

  before(async () => {
    t = await createTestApp();
    item = (
      await t.db.query<{ item_id: string }>('SELECT item_id FROM products WHERE id = $1', [products(t).protector])
    )[0].item_id;
  });
  after(() => t.close());

  it('an order keeps the product views cached and still shows the stock it left', async () => {
    await setStock(20);
    assert.equal(await available(), 20);
    // Count the product-view loads (views with media) the next requests cause.
    const seen: string[] = [];
    const query = t.db.query.bind(t.db);
    t.db.query = ((sql: string, params?: unknown[]) => {
      seen.push(sql);
      return query(sql, params);
    }) as typeof t.db.query;
    try {
      await createOrder(t, protectorOrder(t, 4));
      assert.equal(await available(), 16);
      await createOrder(t, protectorOrder(t, 1));
      assert.equal(await available(), 15);
    } finally {
      t.db.query = query;
    }
    assert.equal(seen.filter((q) => q.includes('FROM product_media')).length, 0, 'views were loaded again');
  });

  it('reserves at creation, releases on cancel, takes the shelf on shipping', async () => {
    await setStock(10, 12);
    const order = await createOrder(t, protectorOrder(t, 3));
    assert.deepEqual(await quantities(), { logical_quantity: 7, physical_quantity: 12 });
    assert.equal(await available(), 7);

    const cancel = await call(t, 'POST', `/v2/orders/${order}/cancel`, {
      body: { orderlines: [{ index: 1, canceledQuantity: 1 }] },
    });
    assert.equal(cancel.statusCode, 204, cancel.body);
    assert.deepEqual(await quantities(), { logical_quantity: 8, physical_quantity: 12 });

    assert.equal((await call(t, 'POST', `/v2/test-helpers/orders/${order}/start-production`)).statusCode, 204);
    const shipped = await call(t, 'POST', '/v2/test-helpers/shipments', {
      body: { shipment: { orderReferences: [order] } },
    });
    assert.equal(shipped.statusCode, 200, shipped.body);
    // Two left the shelf; the reservation they held is gone with them, so the available stock stays.
    assert.deepEqual(await quantities(), { logical_quantity: 8, physical_quantity: 10 });

    const ledger = await operator(t, 'GET', `/catalog/items/${item}/movements`);
    assert.equal(ledger.statusCode, 200, ledger.body);
    assert.deepEqual(
      ledger.data.movements.slice(0, 3).map((m: any) => [m.kind, m.logicalDelta, m.physicalDelta, m.logicalAfter]),
      [
        ['ship', 0, -2, 8],
        ['release', 1, 0, 8],
        ['reserve', -3, 0, 7],
      ],
    );
    assert.equal(ledger.data.movements[2].orderReference, order);
    assert.equal(ledger.data.movements[3].kind, 'correct');
    assert.equal(ledger.data.movements[3].logicalAfter, 10);
  });

  it('refuses an order the stock cannot cover, with the contract code and nothing written', async () => {
    await setStock(2);
    const before = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM orders'))[0].n;
    const res = await call(t, 'POST', '/v2/orders', { body: protectorOrder(t, 3) });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.data.code, 'product_not_orderable');
    assert.match(
      res.data.message,
      /orderlines\[0\]\.productReference Product_\w+ is out of stock for this order: 2 left/,
    );
    assert.equal(res.data.details.availableQuantity, 2);
    assert.equal((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM orders'))[0].n, before);
    assert.equal((await quantities()).logical_quantity, 2);
  });

  it('two orders racing for the last item: one wins, the other is refused, nothing oversold', async () => {
    await setStock(1);
    const [a, b] = await Promise.all([
      call(t, 'POST', '/v2/orders', { body: protectorOrder(t, 1) }),
      call(t, 'POST', '/v2/orders', { body: protectorOrder(t, 1) }),
    ]);
    assert.deepEqual([a.statusCode, b.statusCode].sort(), [200, 400], `${a.body} ${b.body}`);
    assert.equal((a.statusCode === 400 ? a : b).data.code, 'product_not_orderable');
    assert.equal((await quantities()).logical_quantity, 0);
    assert.equal(await available(), 0);
  });

  it('orders written together move each of their items, and every ledger row adds up', async () => {
    const clearItem = (
      await t.db.query<{ item_id: string }>('SELECT item_id FROM products WHERE id = $1', [products(t).clear])
    )[0].item_id;
    assert.notEqual(clearItem, item);
    const image = await uploadImage(t);
    await setStock(50);
    const put = await operator(t, 'PUT', `/catalog/items/${clearItem}/stock`, {
      logicalQuantity: 30,
      physicalQuantity: 30,
    });
    assert.equal(put.statusCode, 200, put.body);
    const body = {
      order: {
        ...protectorOrder(t, 2).order,
        orderlines: [
          { productReference: products(t).protector, quantity: 2 },
          { productReference: products(t).clear, imageReference: image, quantity: 1 },
        ],
      },
    };
    // At once, so that the group commit writes several orders (and both items) in one batch.
    const res = await Promise.all(Array.from({ length: 6 }, () => call(t, 'POST', '/v2/orders', { body })));
    for (const r of res) assert.equal(r.statusCode, 200, r.body);
    const logical = async (id: string) =>
      (await t.db.query<{ n: number }>('SELECT logical_quantity AS n FROM items WHERE id = $1', [id]))[0].n;
    assert.equal(await logical(item), 38);
    assert.equal(await logical(clearItem), 24);
    for (const [id, start, per] of [
      [item, 50, 2],
      [clearItem, 30, 1],
    ] as const) {
      const ledger = await operator(t, 'GET', `/catalog/items/${id}/movements?limit=6`);
      assert.equal(ledger.statusCode, 200, ledger.body);
      const rows = ledger.data.movements.reverse();
      assert.deepEqual(
        rows.map((m: any) => [m.kind, m.logicalDelta, m.logicalAfter]),
        rows.map((_: unknown, i: number) => ['reserve', -per, start - per * (i + 1)]),
      );
    }
  });

  it('tells webhook listeners when the available quantity crosses zero', async () => {
    await setStock(1);
    await t.db.query("DELETE FROM jobs WHERE kind = 'catalog.product_changed'");
    await createOrder(t, protectorOrder(t, 1));
    const jobs = await t.db.query<{ payload: any }>("SELECT payload FROM jobs WHERE kind = 'catalog.product_changed'");
    assert.ok(
      jobs.some((j) => j.payload.productReference === products(t).protector && j.payload.stockCrossedZero),
      JSON.stringify(jobs),
    );
    await t.s.worker.drain();
    const events = await call(t, 'GET', '/v2/events?type=product.updated&limit=20');
    assert.equal(events.statusCode, 200, events.body);
    const ev = events.data.events.find((e: any) => e.data.product.reference === products(t).protector);
    assert.ok(ev, 'a product.updated event for the partner');
    assert.equal(ev.data.product.availableQuantity, 0);
  });

  it('operators receive and correct stock with a reason, kept in the ledger', async () => {
    await setStock(0, 0);
    const rec = await operator(t, 'POST', `/catalog/items/${item}/receipts`, { quantity: 50, reason: 'delivery 4711' });
    assert.equal(rec.statusCode, 200, rec.body);
    assert.equal(rec.data.item.logicalQuantity, 50);
    assert.equal(rec.data.item.physicalQuantity, 50);
    const cor = await operator(t, 'POST', `/catalog/items/${item}/corrections`, {
      logicalDelta: -2,
      physicalDelta: -2,
      reason: 'two cracked in the count',
    });
    assert.equal(cor.statusCode, 200, cor.body);
    assert.equal(cor.data.item.physicalQuantity, 48);
    const noReason = await operator(t, 'POST', `/catalog/items/${item}/corrections`, { logicalDelta: 1 });
    assert.equal(noReason.statusCode, 400);
    const tooMuch = await operator(t, 'POST', `/catalog/items/${item}/corrections`, {
      physicalDelta: -100,
      reason: 'x',
    });
    assert.equal(tooMuch.statusCode, 400);
    assert.equal((await quantities()).physical_quantity, 48);
    const unknown = await operator(t, 'POST', '/catalog/items/NO-SUCH-SKU/receipts', { quantity: 1 });
    assert.equal(unknown.statusCode, 404);
    const ledger = await operator(t, 'GET', `/catalog/items/${item}/movements?limit=2`);
    assert.deepEqual(
      ledger.data.movements.map((m: any) => [m.kind, m.reason]),
      [
        ['correct', 'two cracked in the count'],
        ['receive', 'delivery 4711'],
      ],
    );
    assert.ok(ledger.data.nextCursor);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrder, expectError, getOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

const accountOf = async (t: TestApp, code: string) =>
  (await t.db.query<{ account_id: string }>('SELECT account_id FROM stores WHERE code = $1', [code]))[0].account_id;
const balance = async (t: TestApp, acc: string) => (await call(t, 'GET', `/v2/accounts/${acc}`)).data.account.balance;
const ledger = async (t: TestApp, acc: string) =>
  (await operator(t, 'GET', `/accounts/${acc}/ledger?limit=100`)).data.entries as any[];
const movements = (t: TestApp, orderId: string) =>
  t.db.query<{ kind: string; logical_delta: number; physical_delta: number; reason: string | null }>(
    'SELECT kind, logical_delta, physical_delta, reason FROM stock_movements WHERE order_id = $1 ORDER BY id',
    [orderId],
  );

async function startProduction(t: TestApp, ref: string) {
  const res = await operator(t, 'POST', `/orders/${ref}/start-production`);
  assert.equal(res.statusCode, 204, res.body);
}

/** Two lines: 2 clear cases with artwork, 1 screen protector. */
async function twoLineOrder(t: TestApp) {
  const image = await uploadImage(t);
  return createOrder(
    t,
    orderBody(t, image, {
      orderlines: [
        { productReference: products(t).clear, imageReference: image, quantity: 2 },
        { productReference: products(t).protector, quantity: 1 },
      ],
    }),
  );
}

describe('operator cancelation in production', () => {
  let t: TestApp;
  let acc: string;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    acc = await accountOf(t, 'DEMO1');
  });
  after(() => t.close());

  it('cancels a whole order in production: canceled, webhook and callback, credit on the ledger, blanks back', async () => {
    await t.db.query("UPDATE stores SET callback_url = 'http://127.0.0.1:9/callback' WHERE code = 'DEMO1'");
    const ref = await twoLineOrder(t);
    const start = await balance(t, acc);
    await startProduction(t, ref);
    const charged = start - (await balance(t, acc));
    assert.ok(charged > 0);
    const refused = await call(t, 'POST', `/v2/orders/${ref}/cancel`, {
      body: { orderlines: [{ index: 1, canceledQuantity: 2 }] },
    });
    expectError(refused, 409, 'already_in_production');

    const res = await operator(t, 'POST', `/orders/${ref}/cancel`, { reason: 'partner phoned: wrong artwork' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.status, 'canceled');
    assert.deepEqual(res.data.canceled, [
      { index: 1, quantity: 2 },
      { index: 2, quantity: 1 },
    ]);
    const order = await getOrder(t, ref);
    assert.equal(order.status.code, 'canceled');
    assert.equal(await balance(t, acc), start, 'products and shipping credited back');
    const credit = (await ledger(t, acc)).find((e) => e.orderReference === ref && e.kind === 'refund');
    assert.equal(credit.amount, charged);
    assert.match(credit.description, /Canceled in production \(whole order\): partner phoned: wrong artwork/);
    // Not printed yet: the blanks go back to the available stock.
    const moves = await movements(t, ref);
    assert.deepEqual(
      moves.filter((m) => m.kind === 'release').map((m) => m.logical_delta),
      [2, 1],
    );
    const events = (await call(t, 'GET', '/v2/events?type=order.updated&limit=100')).data.events;
    assert.ok(events.some((e: any) => e.data.order.reference === ref && e.data.order.status.code === 'canceled'));
    const callbacks = await t.db.query("SELECT 1 FROM jobs WHERE kind = 'order.callback' AND payload::text LIKE $1", [
      `%${ref}%`,
    ]);
    assert.ok(callbacks.length >= 2, 'the legacy callback of the start and of the cancelation');

    const again = await operator(t, 'POST', `/orders/${ref}/cancel`, { reason: 'twice' });
    expectError(again, 409, 'order_completed');
  });

  it('cancels one line of a printed order: the blank is written off, the line credited, shipping kept', async () => {
    const ref = await twoLineOrder(t);
    await startProduction(t, ref);
    const before = await balance(t, acc);
    assert.equal((await operator(t, 'POST', `/orders/${ref}/produced`)).statusCode, 204);
    const res = await operator(t, 'POST', `/orders/${ref}/cancel`, {
      reason: 'misprint, partner declined a remake',
      orderlines: [1],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.status, 'in_production');
    const [line] = await t.db.query<{ unit_price_cents: number }>(
      'SELECT unit_price_cents FROM orderlines WHERE order_id = $1 AND line_index = 1',
      [ref],
    );
    assert.equal(await balance(t, acc), before + 2 * line.unit_price_cents);
    const off = (await movements(t, ref)).filter((m) => m.kind === 'correct');
    assert.deepEqual(
      off.map((m) => [m.logical_delta, m.physical_delta]),
      [[0, -2]],
    );
    assert.match(off[0].reason!, /printed for .*, then canceled: misprint/);
    const order = await getOrder(t, ref);
    assert.equal(order.orderlines[0].canceledQuantity, 2);
    assert.equal(order.orderlines[1].canceledQuantity, 0);
  });

  it('refuses a cancel without a reason, an unknown line, and a shipped order', async () => {
    const ref = await twoLineOrder(t);
    expectError(await operator(t, 'POST', `/orders/${ref}/cancel`, {}), 400, 'invalid_request');
    expectError(
      await operator(t, 'POST', `/orders/${ref}/cancel`, { reason: '   ' }),
      400,
      'invalid_request',
      'reason',
    );
    expectError(
      await operator(t, 'POST', `/orders/${ref}/cancel`, { reason: 'x', orderlines: [9] }),
      400,
      'invalid_request',
      'line 9',
    );
    expectError(await operator(t, 'POST', '/orders/Order_nope/cancel', { reason: 'x' }), 404, 'not_found');
    assert.equal((await getOrder(t, ref)).status.code, 'pending');
  });
});

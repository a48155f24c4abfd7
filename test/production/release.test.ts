import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nextCutoff } from '../../src/modules/production/cutoffs.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ADDRESS, createOrder, getOrder, orderBody, products, uploadImage } from '../orders/helpers.ts';
import { OPERATOR_USER, signedIn, textOf } from '../dashboard/helpers.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';

const statusOf = async (t: TestApp, ref: string) => (await getOrder(t, ref)).status.code as string;
const MINUTE = 60_000;

/** The queue's entry of an order (the operator API), with its hold. */
async function queued(t: TestApp, ref: string) {
  const q = await operator(t, 'GET', '/fulfilment-queue');
  assert.equal(q.statusCode, 200, q.body);
  return [...q.data.waiting, ...q.data.inProduction].find((o: any) => o.reference === ref);
}

/** The item behind a product, and its shelf set to `physical` blanks (a stock count). */
async function setShelf(t: TestApp, productRef: string, physical: number) {
  await t.db.query(
    `UPDATE items SET physical_quantity = $2, logical_quantity = LEAST(logical_quantity, $2)
     WHERE id = (SELECT item_id FROM products WHERE id = $1)`,
    [productRef, physical],
  );
}

describe('release to production: manual', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('leaves orders pending in the test environment, where helpers and operators start production', async () => {
    assert.equal(t.s.config.productionRelease.mode, 'manual');
    await t.s.production.release.schedule();
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    t.clock.advance(10 * MINUTE);
    await t.s.worker.drain();
    assert.equal(await statusOf(t, ref), 'pending');
    assert.deepEqual(await t.db.query("SELECT 1 FROM jobs WHERE kind LIKE 'production.%release%'"), []);
  });
});

describe('release to production: immediate', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { PRODUCTION_RELEASE: 'immediate' } });
    await t.s.production.release.schedule();
  });
  after(() => t.close());

  it('puts an order whose blanks are at hand into production within a minute, with its print files', async () => {
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    t.clock.advance(MINUTE);
    await t.s.worker.drain();
    assert.equal(await statusOf(t, ref), 'in_production');
    const files = await operator(t, 'GET', `/orders/${ref}/print-files`);
    assert.equal(files.data.printFiles.length, 1);
    assert.equal((await queued(t, ref)).hold, null);
  });

  it('holds an order whose blanks are not on the shelf, shows why, and releases it when stock arrives', async () => {
    const p = products(t).leather;
    const image = await uploadImage(t);
    const ref = await createOrder(t, {
      order: {
        ...orderBody(t, image).order,
        orderlines: [{ productReference: p, imageReference: image, quantity: 2 }],
      },
    });
    await setShelf(t, p, 1);
    t.clock.advance(MINUTE);
    await t.s.worker.drain();
    assert.equal(await statusOf(t, ref), 'pending');
    const held = await queued(t, ref);
    assert.equal(held.hold.reason, 'out_of_stock');
    assert.match(held.hold.message, /DEMO-IP15-LTH needs 2, 1 free on the shelf/);

    const console = await signedIn(t, OPERATOR_USER, 'console');
    const page = await console.request('GET', '/console/production');
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /held: out of stock .*DEMO-IP15-LTH needs 2, 1 free on the shelf/);
    assert.match(textOf(page.body), /Release to production: immediate/);

    const received = await operator(t, 'POST', '/catalog/items/DEMO-IP15-LTH/receipts', {
      quantity: 5,
      reason: 'delivery',
    });
    assert.ok(received.statusCode < 300, received.body);
    t.clock.advance(MINUTE);
    await t.s.worker.drain();
    assert.equal(await statusOf(t, ref), 'in_production');
    assert.equal((await t.db.query('SELECT 1 FROM production_holds WHERE order_id = $1', [ref])).length, 0);
  });

  it('gives the shelf to the oldest orders first', async () => {
    const p = products(t).leather;
    const image = await uploadImage(t);
    const body = {
      order: {
        ...orderBody(t, image).order,
        orderlines: [{ productReference: p, imageReference: image, quantity: 1 }],
      },
    };
    await setShelf(t, p, 50);
    const first = await createOrder(t, body);
    t.clock.advance(1000);
    const second = await createOrder(t, body);
    // Everything on the shelf but one blank is taken by orders already in production.
    const [{ taken }] = await t.db.query<{ taken: number }>(
      `SELECT coalesce(sum(l.quantity - l.canceled_quantity - l.shipped_quantity), 0)::int AS taken
       FROM orderlines l JOIN orders o ON o.id = l.order_id WHERE o.status = 'in_production' AND l.product_id = $1`,
      [p],
    );
    await setShelf(t, p, taken + 1);
    t.clock.advance(MINUTE);
    await t.s.worker.drain();
    assert.equal(await statusOf(t, first), 'in_production');
    assert.equal(await statusOf(t, second), 'pending');
    assert.equal((await queued(t, second)).hold.reason, 'out_of_stock');
  });

  it('holds a pre-order until its product launches, then releases it', async () => {
    const p = products(t).prelaunched;
    const ref = await createOrder(t, {
      order: {
        ...orderBody(t, 'x').order,
        orderlines: [{ productReference: p, imageReference: await uploadImage(t), quantity: 1 }],
      },
    });
    assert.equal(await statusOf(t, ref), 'preorder');
    t.clock.advance(MINUTE);
    await t.s.worker.drain();
    const held = await queued(t, ref);
    assert.equal(held.hold.reason, 'preorder');
    assert.match(held.hold.message, /Galaxy S27 Clear Case to launch/);
    const launched = await operator(t, 'PATCH', `/catalog/products/${p}`, { status: 'launched' });
    assert.equal(launched.statusCode, 200, launched.body);
    // The launch turns the pre-order into a pending order; the next minute's release takes it.
    for (let minute = 0; minute < 2 && (await statusOf(t, ref)) !== 'in_production'; minute++) {
      t.clock.advance(MINUTE);
      await t.s.worker.drain();
    }
    assert.equal(await statusOf(t, ref), 'in_production');
  });
});

describe('release to production: prepaid accounts', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production', PRODUCTION_RELEASE: 'immediate' } });
    await t.s.production.release.schedule();
  });
  after(() => t.close());

  it('holds the order of a prepaid account without the balance and releases it when the top-up is booked', async () => {
    const org = t.seed.organizations[0].reference;
    const acc = await operator(t, 'POST', `/organizations/${org}/accounts`, {
      name: 'Prepaid shop',
      prepaid: true,
      balance: 100,
      legalEntity: { name: 'Prepaid Shop B.V.' },
      billingAddress: ADDRESS,
    });
    assert.equal(acc.statusCode, 200, acc.body);
    const st = await operator(t, 'POST', `/organizations/${org}/stores`, {
      name: 'Prepaid store',
      code: 'PREPAID2',
      integration: 'api',
      accountReference: acc.data.account.reference,
    });
    assert.equal(st.statusCode, 200, st.body);
    const ref = await createOrder(t, {
      order: {
        storeReference: st.data.store.reference,
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    });
    t.clock.advance(MINUTE);
    await t.s.worker.drain();
    assert.equal(await statusOf(t, ref), 'pending');
    const held = await queued(t, ref);
    assert.equal(held.hold.reason, 'insufficient_balance');
    assert.match(held.hold.message, /prepaid/i);

    // A top-up: the money side says the holds may have cleared; no minute has to pass.
    const paid = await operator(t, 'POST', `/accounts/${acc.data.account.reference}/payments`, {
      amount: 10_000,
      note: 'bank transfer',
    });
    assert.equal(paid.statusCode, 200, paid.body);
    await t.s.production.reevaluateHolds(t.db);
    await t.s.worker.drain();
    assert.equal(await statusOf(t, ref), 'in_production');
  });
});

describe('release to production: cut-off times', () => {
  let t: TestApp;
  before(async () => {
    // Monday 7 December 2026, 09:00 in Amsterdam (UTC+1).
    t = await createTestApp({
      env: { PRODUCTION_RELEASE: '10:00,15:00' },
      clock: new ManualClock('2026-12-07T08:00:00Z'),
    });
    await t.s.production.release.schedule();
  });
  after(() => t.close());

  it('releases the orders placed before each cut-off at that cut-off, Amsterdam time', async () => {
    const morning = await createOrder(t, orderBody(t, await uploadImage(t)));
    t.clock.set('2026-12-07T08:59:00Z');
    await t.s.worker.drain();
    assert.equal(await statusOf(t, morning), 'pending', 'before 10:00 nothing goes in');
    const q = await operator(t, 'GET', '/fulfilment-queue');
    assert.deepEqual(q.data.release, {
      mode: 'cutoffs',
      cutoffs: ['10:00', '15:00'],
      timeZone: 'Europe/Amsterdam',
      nextCutoff: '2026-12-07T09:00:00.000Z',
    });

    t.clock.set('2026-12-07T09:00:00Z');
    await t.s.worker.drain();
    assert.equal(await statusOf(t, morning), 'in_production', 'at 10:00 the morning order goes in');

    t.clock.set('2026-12-07T09:30:00Z');
    const late = await createOrder(t, orderBody(t, await uploadImage(t)));
    t.clock.set('2026-12-07T13:59:00Z');
    await t.s.worker.drain();
    assert.equal(await statusOf(t, late), 'pending', 'an order after 10:00 waits for 15:00');
    t.clock.set('2026-12-07T14:00:30Z');
    await t.s.worker.drain();
    assert.equal(await statusOf(t, late), 'in_production');
  });
});

describe('cut-off times', () => {
  it('are read in the factory time zone, summer time included', () => {
    const at = (iso: string) => nextCutoff(new Date(iso), ['10:00', '15:00'], 'Europe/Amsterdam').toISOString();
    assert.equal(at('2026-12-07T08:00:00Z'), '2026-12-07T09:00:00.000Z', 'winter: UTC+1');
    assert.equal(at('2026-07-01T07:59:00Z'), '2026-07-01T08:00:00.000Z', 'summer: UTC+2');
    assert.equal(at('2026-12-07T14:00:00Z'), '2026-12-08T09:00:00.000Z', 'after the last: the next day');
    assert.equal(at('2026-03-28T15:00:00Z'), '2026-03-29T08:00:00.000Z', 'over the night clocks go forward');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { realNow } from '../../src/platform/clock.ts';
import { jobsAlong } from '../../src/platform/jobs/along.ts';
import { enqueue, jobsRepo } from '../../src/platform/jobs/queue.ts';
import { products } from '../orders/helpers.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { ORDER_EXAMPLE, shopifyTestApp } from './helpers.ts';

describe('Shopify orders taken in batches', () => {
  let app: Awaited<ReturnType<typeof shopifyTestApp>>;
  let t: TestApp;
  let store: string;

  /** The example with its first line one of ours (or the SKU given) and its own Shopify order id. */
  function order(name: string, id: string, sku = products(t).protector) {
    const o = structuredClone(ORDER_EXAMPLE);
    o.admin_graphql_api_id = `gid://shopify/Order/${id}`;
    o.id = Number(id);
    o.name = name;
    o.line_items[0].sku = sku;
    o.line_items[0].quantity = 3;
    o.shipping_address.country_code = 'NL';
    return o;
  }
  const webhook = (payload: unknown, deliveryId: string) => app.orderWebhook(payload, deliveryId);
  const inboxJobs = () =>
    t.db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM jobs WHERE kind = 'storefronts.inbox' GROUP BY status ORDER BY status`,
    );

  before(async () => {
    app = await shopifyTestApp();
    ({ t, store } = app);
  });
  after(() => app.close());

  it("makes the store's waiting orders in one job, each delivery ending on its own", async () => {
    const unknownProduct = `Product_${'0'.repeat(26)}`;
    const deliveries: Array<[unknown, string]> = [
      [order('#B1', '5400000000001'), 'b-1'],
      [order('#B2', '5400000000002'), 'b-2'],
      [order('#B3', '5400000000003'), 'b-3'],
      // The same Shopify order again under a new webhook id, and an order whose product is not in the catalog.
      [order('#B1', '5400000000001'), 'b-1-again'],
      [order('#B4', '5400000000004', unknownProduct), 'b-4'],
    ];
    for (const [payload, id] of deliveries) assert.equal((await webhook(payload, id)).statusCode, 200);

    // One job is claimed; it takes the other four along.
    assert.equal(await t.s.worker.runDue(1), 1);
    assert.deepEqual(await inboxJobs(), [{ status: 'succeeded', n: deliveries.length }]);

    const orders = (await call(t, 'GET', `/v2/orders?storeReference=${store}`)).data.orders as Array<any>;
    assert.deepEqual(orders.map((o) => o.upstreamOrder.name).sort(), ['#B1', '#B2', '#B3']);
    for (const o of orders)
      assert.deepEqual(
        o.orderlines.map((l: any) => [l.productReference, l.quantity]),
        [[products(t).protector, 3]],
      );
    const outcomes = (await t.s.storefronts.inbox(store, 10)).map((r) => [r.deliveryKey, r.outcome]);
    assert.equal(outcomes.length, deliveries.length);
    // Keyed by X-Shopify-Event-Id, which the stand-in derives from the webhook id.
    const outcome = (key: string) => outcomes.find(([k]) => k === `event-${key}`)?.[1] ?? '';
    for (const key of ['b-1', 'b-2', 'b-3']) assert.match(outcome(key), /^order Order_/);
    assert.match(outcome('b-1-again'), /already taken/);
    assert.match(outcome('b-4'), /^refused: product_not_orderable/);
  });
});

describe('jobs a running job takes along', () => {
  let t: TestApp;
  const KIND = 'test.along';
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('claims only pending jobs, settles each with its own outcome, and leaves a crashed batch to the lease', async () => {
    for (const k of ['a', 'b', 'c', 'd'])
      await enqueue(t.db, t.s.clock, KIND, { k }, { organizationId: null, dedupeKey: `${KIND}:${k}` });
    const now = realNow(t.s.clock);
    const [holder] = await jobsRepo.claim(t.db, 'worker-1', [KIND], now, [60_000], 1);
    const along = jobsAlong(t.db, t.s.clock);
    const keys = ['a', 'b', 'c', 'd'].map((k) => `${KIND}:${k}`);
    const taken = await along.claim(holder, KIND, keys);
    // The holder's own job is running already: only the three others are taken.
    assert.deepEqual(
      taken.map((j) => j.payload.k).sort(),
      ['a', 'b', 'c', 'd'].filter((k) => k !== holder.payload.k),
    );
    assert.deepEqual(await along.claim(holder, KIND, keys), [], 'a job running is not taken twice');

    const [failing, ...fine] = taken;
    await along.settle(holder, [
      { job: failing, error: new Error('the database went away') },
      ...fine.map((job) => ({ job, error: null })),
    ]);
    const rows = await t.db.query<{ id: number; status: string; last_error: string | null; run_at: Date }>(
      `SELECT id, status, last_error, run_at FROM jobs WHERE kind = $1`,
      [KIND],
    );
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    assert.equal(byId.get(Number(failing.id))!.status, 'pending');
    assert.equal(byId.get(Number(failing.id))!.last_error, 'the database went away');
    assert.ok(byId.get(Number(failing.id))!.run_at > now, 'retried after a backoff');
    for (const j of fine) assert.equal(byId.get(Number(j.id))!.status, 'succeeded');

    // A worker that dies after taking a job along: once the lease is over, another worker claims it again.
    for (const k of ['e', 'f'])
      await enqueue(t.db, t.s.clock, KIND, { k }, { organizationId: null, dedupeKey: `${KIND}:${k}` });
    const [holder2] = await jobsRepo.claim(t.db, 'worker-2', [KIND], now, [60_000], 1);
    const [orphan] = await along.claim(holder2, KIND, [`${KIND}:e`, `${KIND}:f`]);
    assert.ok(orphan, 'the other new job is taken along');
    assert.deepEqual(
      await jobsRepo.claim(t.db, 'worker-3', [KIND], now, [60_000], 10),
      [],
      'held while the lease runs',
    );
    const again = await jobsRepo.claim(t.db, 'worker-3', [KIND], new Date(now.getTime() + 61_000), [60_000], 10);
    assert.ok(again.some((j) => j.id === orphan.id));
  });
});

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createOrder, getOrder, orderBody, uploadImage } from '../orders/helpers.ts';

/**
 * Orders (GET /v2/orders/{ref}) and organizations are served from per-process caches that every
 * change drops, announced by the database's triggers on commit (migration 0019).
 */
describe('cached rows', () => {
  let t: TestApp;
  let image: string;
  before(async () => {
    t = await createTestApp();
    image = await uploadImage(t);
  });
  after(() => t.close());

  /** Polls until `check` holds: notifications arrive after the commit, asynchronously. */
  async function eventually(check: () => Promise<boolean>, what: string) {
    for (let i = 0; i < 100; i++) {
      if (await check()) return;
      await sleep(20);
    }
    assert.fail(what);
  }

  it('serves a repeated read from the cache, and drops it when any statement changes the order', async () => {
    const ref = await createOrder(t, orderBody(t, image));
    assert.equal((await getOrder(t, ref)).status.code, 'pending');
    // A change the triggers do not announce is not seen: the view came from the cache.
    await t.s.db.exec('ALTER TABLE orders DISABLE TRIGGER orders_changed');
    try {
      await t.s.db.query(`UPDATE orders SET status = 'in_production' WHERE id = $1`, [ref]);
      assert.equal((await getOrder(t, ref)).status.code, 'pending', 'cached');
    } finally {
      await t.s.db.exec('ALTER TABLE orders ENABLE TRIGGER orders_changed');
    }
    // The same change by any other statement (another node, an operator's SQL) is announced.
    await t.s.db.query(`UPDATE orders SET status = 'in_production' WHERE id = $1`, [ref]);
    await eventually(async () => (await getOrder(t, ref)).status.code === 'in_production', 'the change is seen');
    // A change of a line is announced too.
    await t.s.db.query('UPDATE orderlines SET canceled_quantity = 1 WHERE order_id = $1', [ref]);
    await eventually(
      async () => (await getOrder(t, ref)).orderlines[0].canceledQuantity === 1,
      'the line change is seen',
    );
  });

  it("reads the writer's own change at once, and never shows a cached order to another organization", async () => {
    const ref = await createOrder(t, orderBody(t, image));
    assert.equal((await getOrder(t, ref)).orderlines[0].canceledQuantity, 0);
    const res = await call(t, 'POST', `/v2/orders/${ref}/cancel`, {
      body: { orderlines: [{ index: 1, canceledQuantity: 1 }] },
    });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await getOrder(t, ref)).orderlines[0].canceledQuantity, 1, 'no wait for the notification');
    const foreign = await call(t, 'GET', `/v2/orders/${ref}`, { key: t.otherKey });
    assert.equal(foreign.statusCode, 404);
  });

  it('drops a cached organization when any statement changes it', async () => {
    const org = t.seed.organizations[0].reference;
    const name = async () => (await call(t, 'GET', '/v2/organization')).data.organization.name;
    const before = await name();
    await t.s.db.exec('ALTER TABLE organizations DISABLE TRIGGER organizations_changed');
    try {
      await t.s.db.query('UPDATE organizations SET name = $2 WHERE id = $1', [org, 'Renamed elsewhere']);
      assert.equal(await name(), before, 'cached');
    } finally {
      await t.s.db.exec('ALTER TABLE organizations ENABLE TRIGGER organizations_changed');
    }
    await t.s.db.query('UPDATE organizations SET name = $2 WHERE id = $1', [org, 'Renamed again']);
    await eventually(async () => (await name()) === 'Renamed again', 'the change is seen');
    // The operator's own change is read back at once.
    await t.s.organization.setRendertokenLimit(org, 4321);
    assert.equal((await t.s.organization.organizationFacts(org)).rendertokenLimit, 4321);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { orderBody, uploadImage } from '../orders/helpers.ts';
import { clearEndpoints, createEndpoint } from '../webhooks/helpers.ts';

describe("test clocks: orders written in one batch take each organization's own time", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  after(() => t.close());

  it("dates every event, stock movement and delivery by its own organization's clock when two organizations order at once", async () => {
    t.clock.set('2026-07-01T08:00:00Z');
    const real = t.clock.now().toISOString();
    const future = '2028-03-04T05:06:07.000Z';
    const advanced = await call(t, 'POST', '/v2/test-helpers/clock/advance', {
      key: t.otherKey,
      body: { clock: { to: future } },
    });
    assert.equal(advanced.statusCode, 200, advanced.body);
    await createEndpoint(t, 'http://127.0.0.1:9/a', ['order.created']);
    await createEndpoint(t, 'http://127.0.0.1:9/b', ['order.created'], t.otherKey);
    const bStore = t.seed.organizations[1].stores[0].reference;
    const [imageA, imageB] = [await uploadImage(t), await uploadImage(t, t.otherKey)];
    const orderA = orderBody(t, imageA);
    const orderB = orderBody(t, imageB);
    orderB.order.storeReference = bStore;

    // Interleaved and at once: the writer batches both organizations' orders together.
    const sent = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(t, 'POST', '/v2/orders', i % 2 ? { key: t.otherKey, body: orderB } : { body: orderA }),
      ),
    );
    for (const res of sent) assert.equal(res.statusCode, 200, res.body);
    const refs = { a: [] as string[], b: [] as string[] };
    for (const [i, res] of sent.entries()) refs[i % 2 ? 'b' : 'a'].push(res.data.order.reference);

    const expect = { a: real, b: future };
    for (const side of ['a', 'b'] as const) {
      const ids = refs[side];
      const events = await t.db.query<{ created_at: Date }>(
        "SELECT created_at FROM events WHERE type = 'order.created' AND data->'order'->>'reference' = ANY($1)",
        [ids],
      );
      assert.equal(events.length, 6);
      assert.deepEqual(
        events.map((e) => e.created_at.toISOString()),
        ids.map(() => expect[side]),
        `organization ${side.toUpperCase()}'s order.created events`,
      );
      const moves = await t.db.query<{ created_at: Date }>(
        "SELECT created_at FROM stock_movements WHERE kind = 'reserve' AND order_id = ANY($1)",
        [ids],
      );
      assert.equal(moves.length, 6);
      assert.deepEqual(
        moves.map((m) => m.created_at.toISOString()),
        ids.map(() => expect[side]),
        `organization ${side.toUpperCase()}'s stock movements`,
      );
      const deliveries = await t.db.query<{ created_at: Date; next_attempt_at: Date }>(
        `SELECT d.created_at, d.next_attempt_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
          WHERE e.data->'order'->>'reference' = ANY($1)`,
        [ids],
      );
      assert.equal(deliveries.length, 6);
      assert.deepEqual(
        deliveries.map((d) => [d.created_at.toISOString(), d.next_attempt_at.toISOString()]),
        ids.map(() => [expect[side], expect[side]]),
        `organization ${side.toUpperCase()}'s deliveries`,
      );
    }
    await clearEndpoints(t);
    await clearEndpoints(t, t.otherKey);
    await call(t, 'DELETE', '/v2/test-helpers/clock', { key: t.otherKey });
  });
});

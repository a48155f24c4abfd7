import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { after, before, describe, it } from 'node:test';
import type { Db, Executor } from '../../src/platform/db/index.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { store } from '../orders/helpers.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import { testDatabaseUrl } from '../support/db.ts';
import { meetingOfTwo } from '../support/meeting.ts';
import { unitsInProduction } from './floor-helpers.ts';

type Side = 'pack' | 'ship';

/**
 * The pack scan and the operator's ship at the same moment: the scan waits once it holds its
 * case's rows, the ship waits before its first lock, until both are there (or a second, when the
 * other is already waiting for a lock). Then both go on. Each side's statements are told apart by
 * the async context they run in.
 */
function sameMoment(db: Db) {
  const side = new AsyncLocalStorage<Side>();
  const arrived = new Set<Side>();
  const bothThere = meetingOfTwo();
  const meet = async (s: Side) => {
    if (arrived.has(s)) return;
    arrived.add(s);
    await bothThere();
  };
  const locks = (sql: string) => /FOR UPDATE|pg_advisory_xact_lock/.test(sql);
  const spied = (tx: Executor): Executor => ({
    async query(sql, params) {
      const s = side.getStore();
      if (s === 'ship' && locks(sql)) await meet(s);
      const rows = await tx.query(sql, params);
      if (s === 'pack' && /FOR UPDATE OF u, o/.test(sql)) await meet(s);
      return rows as never;
    },
  });
  const tx = db.tx.bind(db);
  Object.assign(db, { tx: <T>(fn: (tx: Executor) => Promise<T>) => tx((t) => fn(spied(t))) });
  return {
    as: <T>(s: Side, fn: () => Promise<T>) => side.run(s, fn),
    restore: () => Object.assign(db, { tx }),
  };
}

describe('pack station and operator ship on PostgreSQL: one combined parcel at the same moment', {
  skip: testDatabaseUrl ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  const combined = (cases: number) =>
    unitsInProduction(t, cases, true, {
      storeReference: store(t, 'DEMO2'),
      shippingKind: 'combined',
      dropshipAddress: undefined,
    });

  it('ships the parcel once; the other is answered with a 409 or a refused scan, never a 500', async () => {
    const st = t.s.production.stations;
    const orders = [await combined(1), await combined(1)];
    for (const o of orders) await st.qc(o.units[0], 'pass');
    // The ship locks the orders' rows in id order: the scan's case is of the order it locks last,
    // so the scan holds that row while the ship holds the other one.
    const [first, last] = [...orders].sort((a, b) => (a.ref < b.ref ? -1 : 1));
    assert.equal((await st.pack(first.units[0])).shipment, null, 'the parcel waits for its last case');
    const shipments = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM shipments'))[0].n;
    const before = await shipments();

    const moment = sameMoment(t.db);
    const [scan, ship] = await Promise.allSettled([
      moment.as('pack', () => st.pack(last.units[0])),
      moment.as('ship', () => operator(t, 'POST', '/shipments', { orderReferences: [first.ref, last.ref] })),
    ]).finally(moment.restore);

    assert.equal(ship.status, 'fulfilled');
    const res = ship.value;
    const scanShipped = scan.status === 'fulfilled' && scan.value.shipment !== null;
    if (scanShipped) {
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().code, 'order_not_in_production');
      assert.match(res.json().message, /is shipped; only orders in production can ship/);
    } else {
      assert.equal(res.statusCode, 200, res.body);
      // The scan that waited for the operator's shipment: its case's order is shipped.
      assert.equal(scan.status, 'rejected');
      assert.ok(scan.reason instanceof ApiError && scan.reason.code === 'scan_refused', String(scan.reason));
      assert.match(scan.reason.message, /which is shipped/);
    }
    if (scan.status === 'fulfilled') assert.equal(scan.value.shipError, null, String(scan.value.shipError));
    assert.equal(await shipments(), before + 1, 'one shipment made');
    const rows = await t.db.query<{ status: string; shipment_id: string }>(
      'SELECT status, shipment_id FROM orders WHERE id = ANY($1::text[])',
      [orders.map((o) => o.ref)],
    );
    assert.deepEqual(
      rows.map((r) => r.status),
      ['shipped', 'shipped'],
    );
    assert.equal(new Set(rows.map((r) => r.shipment_id)).size, 1, 'both orders in the one shipment');
  });
});

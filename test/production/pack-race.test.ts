import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { packStation } from '../../src/modules/production/pack.ts';
import type { Db } from '../../src/platform/db/index.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { type TestApp, createTestApp } from '../support/app.ts';
import { testDatabaseUrl } from '../support/db.ts';
import { meetingOfTwo } from '../support/meeting.ts';
import { unitsInProduction } from './floor-helpers.ts';

/**
 * The database as two packing tables at the same instant see it: each scan's transaction, once
 * it ended, waits for the other's to end too (or a second, when the other is still waiting for a
 * lock), so that whatever either decides after its transaction, it decides with both cases packed.
 */
function sameInstant(db: Db): Db {
  const bothEnded = meetingOfTwo();
  return Object.assign(Object.create(db) as Db, {
    async tx<T>(fn: Parameters<Db['tx']>[0]): Promise<T> {
      try {
        return (await db.tx(fn)) as T;
      } finally {
        await bothEnded();
      }
    },
  });
}

describe('pack station on PostgreSQL: the last two cases of a parcel scanned at once', {
  skip: testDatabaseUrl ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('ships the parcel once; the other scan is answered with its case on the table, never "did not ship"', async () => {
    const { ref, units } = await unitsInProduction(t, 2);
    for (const u of units) await t.s.production.stations.qc(u, 'pass');
    const pack = packStation({
      db: sameInstant(t.db),
      clock: t.clock,
      ship: (tx, orderIds) => t.s.shipments.ship(null, { orderReferences: orderIds }, 'scan', tx),
      lockCombined: t.s.shipments.lockCombined,
    });
    const shipments = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM shipments'))[0].n;
    const before = await shipments();
    const answers = await Promise.allSettled(units.map((u) => pack(u)));
    const shipped = answers.flatMap((a) => (a.status === 'fulfilled' && a.value.shipment ? [a.value.shipment] : []));
    assert.equal(shipped.length, 1, 'one scan ships the parcel');
    for (const a of answers) {
      if (a.status === 'rejected') {
        // A scan that waited for a parcel that shipped meanwhile: what a repeated scan answers.
        assert.ok(a.reason instanceof ApiError && a.reason.code === 'scan_refused', String(a.reason));
        assert.match(a.reason.message, /which is shipped|is packed already/);
      } else {
        assert.equal(a.value.shipError, null, 'no scan says the parcel did not ship');
        if (!a.value.shipment)
          assert.deepEqual(
            a.value.progress.missing.map((m) => m.unit),
            units.filter((u) => u !== a.value.unit),
            'the scan before the last one lists the last case as missing',
          );
      }
    }
    assert.equal(await shipments(), before + 1, 'one shipment made');
    const [order] = await t.db.query<{ status: string; shipment_id: string }>(
      'SELECT status, shipment_id FROM orders WHERE id = $1',
      [ref],
    );
    assert.deepEqual([order.status, order.shipment_id], ['shipped', shipped[0]]);
  });
});

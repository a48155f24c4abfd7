import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/platform/errors.ts';
import { store } from '../orders/helpers.ts';
import { unitsInProduction } from './floor-helpers.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

const refused = (p: Promise<unknown>, code: string, message: RegExp) =>
  assert.rejects(p, (e: unknown) => e instanceof ApiError && e.code === code && message.test(e.message));

describe('pack station: combined orders of one store in one parcel', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  const st = () => t.s.production.stations;
  const combined = (cases: number) =>
    unitsInProduction(t, cases, true, {
      storeReference: store(t, 'DEMO2'),
      shippingKind: 'combined',
      dropshipAddress: undefined,
    });
  const shipmentOf = async (ref: string) =>
    (await t.db.query<{ shipment_id: string | null }>('SELECT shipment_id FROM orders WHERE id = $1', [ref]))[0]
      .shipment_id;

  it('finds the parcel of a scanned case, lists every case of its orders, and ships them as one shipment', async () => {
    const a = await combined(2);
    const b = await combined(1);
    const dropship = await unitsInProduction(t, 1);
    for (const u of [...a.units, ...b.units, ...dropship.units]) await st().qc(u, 'pass');

    const first = await st().pack(a.units[0]);
    assert.equal(first.shipment, null);
    const p = first.progress;
    assert.match(p.parcel ?? '', /^Parcel_/);
    assert.deepEqual(p.orders, [a.ref, b.ref], 'every combined order of the store in production, oldest first');
    assert.deepEqual(
      p.cases.map((c) => [c.unit, c.orderReference, c.packed]),
      [
        [a.units[0], a.ref, true],
        [a.units[1], a.ref, false],
        [b.units[0], b.ref, false],
      ],
    );
    assert.deepEqual(
      p.missing.map((m) => [m.unit, m.why]),
      [
        [a.units[1], 'passed QC, not on the table yet'],
        [b.units[0], 'passed QC, not on the table yet'],
      ],
    );
    assert.deepEqual(
      p.fromShelf.map((l) => [l.orderReference, l.lineIndex, l.quantity]),
      [
        [a.ref, 2, 1],
        [b.ref, 2, 1],
      ],
    );
    await refused(st().pack(a.units[0]), 'scan_refused', /is packed already/);

    // A combined order released after the parcel opened joins it when one of its cases is scanned.
    const c = await combined(1);
    await st().qc(c.units[0], 'pass');
    const joined = await st().pack(c.units[0]);
    assert.equal(joined.progress.parcel, p.parcel);
    assert.deepEqual(joined.progress.orders, [a.ref, b.ref, c.ref]);
    assert.equal(joined.progress.packed, 2);

    // The dropship order at the same table is a parcel of its own.
    const alone = await st().pack(dropship.units[0]);
    assert.equal(alone.progress.parcel, null);
    assert.match(alone.shipment ?? '', /^Shipment_/);

    assert.equal((await st().pack(b.units[0])).shipment, null);
    const done = await st().pack(a.units[1]);
    assert.match(done.shipment ?? '', /^Shipment_/);
    assert.deepEqual(done.progress.missing, []);
    for (const o of [a, b, c]) {
      assert.equal(await shipmentOf(o.ref), done.shipment, `${o.ref} in the one shipment`);
      assert.equal((await call(t, 'GET', `/v2/orders/${o.ref}`)).data.order.status.code, 'shipped');
    }
    const docs = await operator(t, 'GET', `/shipments/${done.shipment}/documents`);
    assert.deepEqual(docs.data.documents.map((d: { kind: string }) => d.kind).sort(), [
      'packing_slip',
      'shipping_label',
    ]);
    const [row] = await t.db.query<{ shipment_id: string; closed_at: Date | null }>(
      'SELECT shipment_id, closed_at FROM pack_parcels WHERE id = $1',
      [p.parcel],
    );
    assert.equal(row.shipment_id, done.shipment);
    assert.ok(row.closed_at, 'the parcel is closed once it ships');

    // The next combined order of the store opens a new parcel.
    const d = await combined(1);
    await st().qc(d.units[0], 'pass');
    const next = await st().pack(d.units[0]);
    assert.notEqual(next.progress.parcel, p.parcel);
    assert.deepEqual(next.progress.orders, [d.ref]);
    assert.match(next.shipment ?? '', /^Shipment_/);
  });

  it('an order canceled while its parcel is open drops out, and the rest ships without it', async () => {
    const a = await combined(1);
    const b = await combined(1);
    await st().qc(a.units[0], 'pass');
    const open = await st().pack(a.units[0]);
    assert.deepEqual(open.progress.orders, [a.ref, b.ref]);
    const res = await operator(t, 'POST', `/orders/${b.ref}/cancel`, { reason: 'partner phoned' });
    assert.equal(res.statusCode, 200, res.body);
    const progress = await st().progress(a.ref);
    assert.deepEqual([progress.orders, progress.missing], [[a.ref], []]);
    await refused(st().pack(b.units[0]), 'scan_refused', /was canceled|which is canceled/);
    // Every case is on the table: a scan of a packed case ships the parcel.
    const again = await st().pack(a.units[0]);
    assert.match(again.shipment ?? '', /^Shipment_/);
    assert.equal(await shipmentOf(a.ref), again.shipment);
  });
});

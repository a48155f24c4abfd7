import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/platform/errors.ts';
import { floorRepo } from '../../src/modules/production/floor-repo.ts';
import { parseUnitScan } from '../../src/modules/production/unit-code.ts';
import { products } from '../orders/helpers.ts';
import { unitsInProduction } from './floor-helpers.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

const item = async (t: TestApp) =>
  (
    await t.db.query<{ id: string; logical_quantity: number; physical_quantity: number }>(
      'SELECT i.id, i.logical_quantity, i.physical_quantity FROM items i JOIN products p ON p.item_id = i.id WHERE p.id = $1',
      [products(t).clear],
    )
  )[0];
const movements = (t: TestApp, orderId: string) =>
  t.db.query<{ logical_delta: number; physical_delta: number; reason: string | null }>(
    "SELECT logical_delta, physical_delta, reason FROM stock_movements WHERE order_id = $1 AND kind = 'correct' ORDER BY id",
    [orderId],
  );
const stateOf = async (t: TestApp, id: string) => (await floorRepo.unit(t.db, id))!;
const refused = (p: Promise<unknown>, code: string, message: RegExp) =>
  assert.rejects(p, (e: unknown) => e instanceof ApiError && e.code === code && message.test(e.message));

const inProduction = unitsInProduction;

describe('scanned unit codes', () => {
  it('read what a scanner types, in either case, and nothing else', () => {
    const id = 'Unit_0123456789abcdefghjkmnpqrs';
    assert.equal(parseUnitScan(` ${id}\n`), id);
    assert.equal(parseUnitScan(id.toUpperCase()), id);
    for (const bad of ['', 'Batch_0123456789abcdefghjkmnpqrs', `${id}x`, 'Unit_0123456789abcdefghijkmnpqr', 'Unit_'])
      assert.equal(parseUnitScan(bad), null, bad);
  });
});

describe('QC and pack stations', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  const st = () => t.s.production.stations;

  it('passes cases at QC, packs them, and ships the parcel once every case is on the table', async () => {
    const { ref, units } = await inProduction(t, 2);
    const [a, b] = units;
    await refused(st().pack(a), 'scan_refused', /has not been through QC/);
    const first = await st().qc(a.toUpperCase(), 'pass');
    assert.deepEqual([first.unit, first.result], [a, 'passed']);
    assert.equal((await stateOf(t, a)).state, 'qc_passed');
    await refused(st().qc(a, 'pass'), 'scan_refused', /passed QC already: take it to packing/);

    const one = await st().pack(a);
    assert.equal(one.shipment, null);
    assert.deepEqual(
      one.progress.missing.map((m) => [m.unit, m.why]),
      [[b, 'has not been through QC']],
    );
    assert.deepEqual(
      one.progress.fromShelf.map((l) => [l.lineIndex, l.quantity]),
      [[2, 1]],
    );
    await refused(st().pack(a), 'scan_refused', /is packed already/);

    await st().qc(b, 'pass');
    const done = await st().pack(b);
    assert.match(done.shipment ?? '', /^Shipment_/);
    assert.equal((await call(t, 'GET', `/v2/orders/${ref}`)).data.order.status.code, 'shipped');
    const docs = await operator(t, 'GET', `/shipments/${done.shipment}/documents`);
    assert.deepEqual(docs.data.documents.map((d: { kind: string }) => d.kind).sort(), [
      'packing_slip',
      'shipping_label',
    ]);
    await refused(st().qc(a, 'pass'), 'scan_refused', /which is shipped/);
  });

  it('a failed case takes a new blank from stock naming the reason, costs the partner nothing, and is batched again', async () => {
    const { ref, units } = await inProduction(t, 1);
    const [u] = units;
    const before = await item(t);
    const ledger = () => t.db.query('SELECT id FROM ledger_entries WHERE order_id = $1 ORDER BY id', [ref]);
    const charges = await ledger();
    const failed = await st().qc(u, 'misprint');
    assert.equal(failed.result, 'failed');
    assert.deepEqual(failed.remake, { taken: true, message: null });
    const after = await item(t);
    assert.equal(after.logical_quantity, before.logical_quantity - 1, 'the new blank is reserved');
    assert.equal(after.physical_quantity, before.physical_quantity - 1, 'the spoilt blank left the shelf');
    const [m] = await movements(t, ref);
    assert.match(m.reason ?? '', new RegExp(`^Misprint: ${u} \\(line 1\\) made again at the factory's cost$`));
    assert.deepEqual(await ledger(), charges, 'nothing charged or credited to the partner');
    const unit = await stateOf(t, u);
    assert.deepEqual([unit.state, unit.attempt, unit.remake_reason], ['awaiting_batch', 2, 'misprint']);
    const events = await t.db.query<{ to_state: string; reason: string | null }>(
      'SELECT to_state, reason FROM floor_unit_events WHERE unit_id = $1 ORDER BY id',
      [u],
    );
    assert.deepEqual(events.slice(-2), [
      { to_state: 'qc_failed', reason: 'misprint' },
      { to_state: 'awaiting_batch', reason: 'misprint' },
    ]);
    await refused(st().pack(u), 'scan_refused', /not printed yet: it waits for a batch/);
    await refused(st().qc(u, 'pass'), 'scan_refused', /not printed yet/);

    // Printed again in a later batch: it passes and ships.
    await floorRepo.move(t.db, [u], 'awaiting_batch', 'batched', { at: t.clock.now() });
    await floorRepo.move(t.db, [u], 'batched', 'printed', { at: t.clock.now() });
    await st().qc(u, 'pass');
    assert.match((await st().pack(u)).shipment ?? '', /^Shipment_/);
  });

  it('holds a failed case with its reason when no blank is free, and batches it again once stock arrives', async () => {
    const { ref, units } = await inProduction(t, 1);
    const [u] = units;
    const { id, logical_quantity } = await item(t);
    await t.db.query(
      'UPDATE items SET logical_quantity = 0, physical_quantity = physical_quantity - $2 WHERE id = $1',
      [id, logical_quantity],
    );
    const failed = await st().qc(u, 'damaged_blank');
    assert.equal(failed.remake?.taken, false);
    assert.match(failed.remake?.message ?? '', /^No free .+ blank on the shelf: waits for stock$/);
    assert.equal((await movements(t, ref)).length, 0, 'no blank moved');
    assert.equal((await stateOf(t, u)).state, 'qc_failed');
    await refused(st().qc(u, 'pass'), 'scan_refused', /waits for a new blank: No free/);
    assert.match((await st().progress(ref)).missing[0].why, /^No free/);

    assert.equal(await st().retryHeld(), 0);
    await t.db.query('UPDATE items SET logical_quantity = 5, physical_quantity = physical_quantity + 5 WHERE id = $1', [
      id,
    ]);
    assert.equal(await st().retryHeld(), 1);
    assert.equal((await stateOf(t, u)).state, 'awaiting_batch');
    assert.equal((await movements(t, ref)).length, 1);
    assert.equal((await t.db.query('SELECT 1 FROM unit_holds WHERE unit_id = $1', [u])).length, 0);
  });

  it('replaces a blank damaged or missing at picking from stock, or takes the case out of its batch, held', async () => {
    const { ref, units } = await inProduction(t, 2, false);
    const [a, b] = units;
    const ok = await st().pickingProblem(a, 'blank_damaged_at_picking');
    assert.equal(ok.replaced, true);
    assert.equal((await stateOf(t, a)).state, 'batched', 'the new blank goes into the same slot');
    assert.match((await movements(t, ref))[0].reason ?? '', /^Blank damaged at picking: Unit_/);
    const { id } = await item(t);
    await t.db.query('UPDATE items SET logical_quantity = 0 WHERE id = $1', [id]);
    const held = await st().pickingProblem(b, 'blank_missing_at_picking');
    assert.deepEqual([held.replaced, (await stateOf(t, b)).state], [false, 'awaiting_batch']);
    assert.match(held.message ?? '', /waits for stock/);
    await refused(st().pickingProblem(b, 'blank_missing_at_picking'), 'scan_refused', /held already/);
    const awaiting = async () => (await floorRepo.awaiting(t.db)).map((x) => x.id);
    assert.ok(!(await awaiting()).includes(b), 'the batching leaves a held case alone');
    await t.db.query(
      'UPDATE items SET logical_quantity = 50, physical_quantity = physical_quantity + 50 WHERE id = $1',
      [id],
    );
    assert.equal(await st().retryHeld(), 1);
    assert.equal((await stateOf(t, b)).state, 'awaiting_batch');
    assert.ok((await awaiting()).includes(b), 'with a blank it is batched again');
  });

  it('refuses what is no case, unknown cases and orders no longer in production', async () => {
    await refused(st().qc('hello', 'pass'), 'invalid_request', /not a case’s code/);
    await refused(
      st().pack('Unit_0123456789abcdefghjkmnpqrs'),
      'scan_refused',
      /No case Unit_0123456789abcdefghjkmnpqrs/,
    );
    const { ref, units } = await inProduction(t, 1);
    const res = await operator(t, 'POST', `/orders/${ref}/cancel`, { reason: 'partner phoned' });
    assert.equal(res.statusCode, 200, res.body);
    await refused(st().qc(units[0], 'pass'), 'scan_refused', /was canceled: put it aside/);
  });
});

describe('pack station with a carrier that needs a tracking number', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { CARRIER: 'manual' } });
  });
  after(() => t.close());

  it('keeps the packed parcel ready to ship with the reason, and a scan of its case tries again', async () => {
    const { ref, units } = await unitsInProduction(t, 1, true, { dropshipMinimalShippingLevel: 'tracked' });
    await t.s.production.stations.qc(units[0], 'pass');
    const res = await t.s.production.stations.pack(units[0]);
    assert.equal(res.shipment, null);
    assert.match(res.shipError ?? '', /tracking/i);
    const queue = await t.s.production.queue();
    assert.ok(
      queue.readyToShip.some((o) => o.reference === ref),
      'ready to ship in the queue',
    );
    const again = await t.s.production.stations.pack(units[0]);
    assert.equal(again.shipment, null);
    assert.match(again.shipError ?? '', /tracking/i);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { floorRepo } from '../../src/modules/production/floor-repo.ts';
import { createOrder, expectError, orderBody, products, uploadImage } from '../orders/helpers.ts';
import {
  code128Values,
  pdfImages,
  pdfInfo,
  pdfText,
  popplerMissing,
  rawPixels,
  renderPage,
  keepPage,
} from '../support/pdf-tools.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';

const MM = 72 / 25.4;
const units = (t: TestApp, orderId: string) =>
  t.db.query<{ id: string; line_index: number; unit_no: number; state: string; attempt: number }>(
    'SELECT id, line_index, unit_no, state, attempt FROM floor_units WHERE order_id = $1 ORDER BY line_index, unit_no',
    [orderId],
  );
const movements = (t: TestApp, orderId: string) =>
  t.db.query<{ kind: string; logical_delta: number; physical_delta: number }>(
    'SELECT kind, logical_delta, physical_delta FROM stock_movements WHERE order_id = $1 ORDER BY id',
    [orderId],
  );

async function startedOrder(t: TestApp, quantity: number) {
  const image = await uploadImage(t);
  const ref = await createOrder(
    t,
    orderBody(t, image, {
      orderlines: [
        { productReference: products(t).clear, imageReference: image, quantity },
        { productReference: products(t).protector, quantity: 1 },
      ],
    }),
  );
  const res = await operator(t, 'POST', `/orders/${ref}/start-production`);
  assert.equal(res.statusCode, 204, res.body);
  return ref;
}

describe('floor units', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('an order going into production puts one unit per printed copy on the floor, awaiting a batch', async () => {
    const ref = await startedOrder(t, 3);
    const u = await units(t, ref);
    // The screen protector has no artwork: it comes off the shelf at packing, not through a printer.
    assert.deepEqual(
      u.map((x) => [x.line_index, x.unit_no, x.state, x.attempt]),
      [
        [1, 1, 'awaiting_batch', 1],
        [1, 2, 'awaiting_batch', 1],
        [1, 3, 'awaiting_batch', 1],
      ],
    );
    assert.match(u[0].id, /^Unit_[0-9a-z]{26}$/);
    // Making the print files again does not make more units.
    assert.equal((await operator(t, 'POST', `/orders/${ref}/print-files`)).statusCode, 202);
    assert.equal((await units(t, ref)).length, 3);
  });

  it('a remake puts a failed unit back to await a batch with its attempt counted and the reason logged', async () => {
    const ref = await startedOrder(t, 1);
    const [u] = await units(t, ref);
    const now = new Date();
    assert.deepEqual(await floorRepo.move(t.db, [u.id], 'awaiting_batch', 'batched', { at: now }), [u.id]);
    assert.deepEqual(await floorRepo.move(t.db, [u.id], 'awaiting_batch', 'printed', { at: now }), [], 'wrong state');
    await floorRepo.move(t.db, [u.id], 'batched', 'printed', { at: now });
    await floorRepo.move(t.db, [u.id], 'printed', 'qc_failed', { at: now, reason: 'misprint' });
    assert.equal(await floorRepo.queueRemake(t.db, u.id, ['qc_passed'], 'misprint', now), false);
    assert.equal(await floorRepo.queueRemake(t.db, u.id, ['qc_failed'], 'misprint', now), true);
    const again = await floorRepo.unit(t.db, u.id);
    assert.equal(again?.state, 'awaiting_batch');
    assert.equal(again?.attempt, 2);
    assert.equal(again?.remake_reason, 'misprint');
    const log = await t.db.query<{ from_state: string | null; to_state: string; reason: string | null }>(
      'SELECT from_state, to_state, reason FROM floor_unit_events WHERE unit_id = $1 ORDER BY id',
      [u.id],
    );
    assert.deepEqual(
      log.map((e) => [e.from_state, e.to_state, e.reason]),
      [
        [null, 'awaiting_batch', null],
        ['awaiting_batch', 'batched', null],
        ['batched', 'printed', null],
        ['printed', 'qc_failed', 'misprint'],
        ['qc_failed', 'awaiting_batch', 'misprint'],
      ],
    );
  });

  it('canceling in production cancels the units; a printed blank is written off, the others go back to stock', async () => {
    const ref = await startedOrder(t, 3);
    const u = await units(t, ref);
    await floorRepo.move(t.db, [u[0].id], 'awaiting_batch', 'batched', { at: new Date() });
    await floorRepo.move(t.db, [u[0].id], 'batched', 'printed', { at: new Date() });
    const res = await operator(t, 'POST', `/orders/${ref}/cancel`, { reason: 'wrong artwork', orderlines: [1] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      (await units(t, ref)).map((x) => x.state),
      ['canceled', 'canceled', 'canceled'],
    );
    const moves = (await movements(t, ref)).filter((m) => m.kind !== 'reserve');
    assert.deepEqual(
      moves.map((m) => [m.kind, m.logical_delta, m.physical_delta]),
      [
        ['correct', 0, -1],
        ['release', 2, 0],
      ],
    );
  });

  it('batches the units awaiting one into jigs (operator API), and the print station marks a batch printed', async () => {
    const ref = await startedOrder(t, 2);
    const res = await operator(t, 'POST', '/production/batches', { flush: true });
    assert.equal(res.statusCode, 200, res.body);
    const mine = res.data.batches.find((b: any) => b.jig === 'phones-12');
    assert.ok(mine, res.body);
    assert.equal(res.data.unplaced.length, 0);
    const batch = (await operator(t, 'GET', `/production/batches/${mine.reference}`)).data;
    assert.equal(batch.status, 'open');
    assert.equal(batch.printer, 'uv-1');
    const slots = batch.slots.filter((s: any) => s.orderReference === ref);
    assert.equal(slots.length, 2);
    assert.deepEqual(
      slots.map((s: any) => s.state),
      ['batched', 'batched'],
    );
    assert.match(slots[0].slot, /^[A-D][1-3]$/);
    const listed = (await operator(t, 'GET', '/production/batches')).data.batches;
    assert.ok(listed.some((b: any) => b.reference === mine.reference));
    // Nothing is left to batch: a second run makes no batch.
    assert.equal((await operator(t, 'POST', '/production/batches', { flush: true })).data.batches.length, 0);

    const printed = await operator(t, 'POST', `/production/batches/${mine.reference}/printed`);
    assert.equal(printed.statusCode, 200, printed.body);
    assert.equal(printed.data.status, 'printed');
    assert.ok(printed.data.slots.every((s: any) => s.state === 'printed'));
    const again = await operator(t, 'POST', `/production/batches/${mine.reference}/printed`);
    assert.equal(again.statusCode, 409);
    assert.equal(again.data.code, 'batch_not_open');
    assert.match(again.data.message, /is printed \(/);
    for (const bad of ['Batch_nope', 'Order_0123456789abcdefghjkmnpqrs'])
      assert.equal((await operator(t, 'POST', `/production/batches/${bad}/printed`)).statusCode, 404);
    assert.equal((await operator(t, 'POST', '/production/batches', { flush: 'yes' })).statusCode, 400);
  });

  it('makes a batch print file of the bed at 1:1, a pick list and a batch sheet whose barcode is the batch', {
    skip: popplerMissing,
  }, async () => {
    const ref = await startedOrder(t, 3);
    const res = await operator(t, 'POST', '/production/batches', { flush: true });
    const made = res.data.batches.find((b: any) => b.jig === 'phones-12');
    const pending = (await operator(t, 'GET', `/production/batches/${made.reference}`)).data;
    assert.deepEqual(
      pending.files.map((f: any) => [f.kind, f.status]),
      [
        ['print_file', 'pending'],
        ['pick_list', 'pending'],
        ['batch_sheet', 'pending'],
      ],
    );
    expectError(
      await operator(t, 'GET', `/production/batches/${made.reference}/files/print-file`),
      409,
      'production_file_not_ready',
    );
    await t.s.worker.drain();
    const ready = (await operator(t, 'GET', `/production/batches/${made.reference}`)).data;
    assert.ok(
      ready.files.every((f: any) => f.status === 'ready'),
      JSON.stringify(ready.files),
    );
    const file = (kind: string) => operator(t, 'GET', `/production/batches/${made.reference}/files/${kind}`);

    const print = (await file('print-file')).rawPayload;
    const [w, h] = pdfInfo(print)
      ['Page size'].split(' ')
      .filter((x) => /^[\d.]+$/.test(x))
      .map(Number);
    // The bed of the UV printer at 1:1; one image per case, with 2 mm of bleed on each side at 600 dpi.
    assert.ok(Math.abs(w - 610 * MM) < 0.1 && Math.abs(h - 420 * MM) < 0.1, `page ${w}x${h} pt`);
    const spec = (await t.s.catalog.findProductData(t.seed.organizations[0].reference, products(t).clear))!.print!;
    const bleedPx = Math.round((2 / 25.4) * spec.dpi);
    assert.deepEqual(
      pdfImages(print),
      Array.from({ length: 3 }, () => ({
        width: spec.widthPx + 2 * bleedPx,
        height: spec.heightPx + 2 * bleedPx,
        xppi: spec.dpi,
        yppi: spec.dpi,
      })),
    );
    const raw = print.toString('latin1');
    assert.ok(raw.includes('/Separation /CutContour'), 'cut lines in CutContour');
    assert.match(raw, /\/OutputIntents/);
    assert.match(raw, /sRGB IEC61966-2\.1/);
    // The cases lie on their side in the phone jig: each image is drawn turned a quarter.
    const page = await rawPixels(keepPage('production', 'batch-print-file', renderPage(print, 20)));
    assert.ok(page.width > page.height);

    const pick = pdfText((await file('pick-list')).rawPayload);
    assert.match(pick, /Pick list/);
    assert.match(pick, /3\s*×\s+CASE-IP15-CLR\s+A \(clear\)/);
    for (const slot of ['A1', 'A2', 'A3']) assert.match(pick, new RegExp(`${slot}\\s+CASE-IP15-CLR`));
    assert.match(pick, /line 1, case 3 of 3/);

    const sheet = (await file('batch-sheet')).rawPayload;
    assert.match(pdfText(sheet), new RegExp(made.reference));
    assert.deepEqual(await code128Values(keepPage('production', 'batch-sheet', renderPage(sheet, 150))), [
      made.reference,
    ]);
    // Its last page: one code per slot, the case's unit reference, as the QC and pack stations scan it.
    const units = (await floorRepo.unitsOfBatch(t.db, made.reference)).map((u) => u.id);
    assert.deepEqual(
      (await code128Values(keepPage('production', 'batch-sheet-case-codes', renderPage(sheet, 150, 2)))).sort(),
      [...units].sort(),
    );
    keepPage('production', 'pick-list', renderPage((await file('pick-list')).rawPayload, 80));
    assert.ok(ref);
  });
});

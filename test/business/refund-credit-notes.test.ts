import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { categories, itemIssues } from '../claims/helpers.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';

/** Claim refunds, cancelations in production and price corrections of invoiced orders are credit notes. */
describe('corrections of issued invoices are credit notes', () => {
  let t: TestApp;
  /** October's orders, invoiced on 1 November. */
  const o: Record<'claimed' | 'canceled' | 'corrected', string> = { claimed: '', canceled: '', corrected: '' };
  let invoice: any;
  const notesOf = async (invoiceRef: string) =>
    (
      await t.db.query<{ id: string }>(
        "SELECT id FROM invoices WHERE kind = 'credit_note' AND corrects_invoice_id = $1 ORDER BY seq",
        [invoiceRef],
      )
    ).map((r) => r.id);
  const doc = async (ref: string) => {
    const res = await operator(t, 'GET', `/invoices/${ref}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.data.invoice;
  };

  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    t.clock.set('2026-10-05T09:00:00.000Z');
    for (const k of Object.keys(o) as Array<keyof typeof o>) {
      o[k] = await createOrder(t, {
        order: {
          storeReference: store(t, 'DEMO1'),
          shippingKind: 'dropship',
          customIdentifier: `corr-${k}`,
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference: products(t).protector, quantity: 3 }],
        },
      });
      assert.equal((await operator(t, 'POST', `/orders/${o[k]}/start-production`)).statusCode, 204);
    }
    const shipped = await operator(t, 'POST', '/shipments', { orderReferences: [o.claimed] });
    assert.equal(shipped.statusCode, 200, shipped.body);
    t.clock.set('2026-11-01T03:00:00.000Z');
    const issued = await operator(t, 'POST', '/invoices/issue', { month: '2026-10' });
    assert.equal(issued.statusCode, 200, issued.body);
    invoice = issued.data.invoices.find((i: any) => i.lines.some((l: any) => l.orderReference === o.claimed));
    assert.ok(invoice, issued.body);
    t.clock.set('2026-11-03T10:00:00.000Z');
  });
  after(() => t.close());

  it('a claim that refunds items and shipping is one credit note of the invoice, a line for each', async () => {
    const cat = await categories(t);
    const shipment = (
      await t.db.query<{ shipment_id: string }>('SELECT shipment_id FROM orders WHERE id = $1', [o.claimed])
    )[0].shipment_id;
    const claim = await itemIssues(t, {
      shipmentReference: shipment,
      orderReference: o.claimed,
      claimlines: [{ orderlineIndex: 1, quantity: 2, claimcategoryReference: cat['Wrong item'] }],
    });
    assert.equal(claim.statusCode, 200, claim.body);
    const ref = claim.data.claim.reference;
    const decided = await operator(t, 'POST', `/claims/${ref}/decide`, {
      decision: {
        status: 'resolved',
        refundShippingCosts: true,
        comment: 'refunded',
        claimlines: [
          { orderlineIndex: 1, replacementQuantity: 0, refundQuantity: 2, rejectionQuantity: 0, comment: '' },
        ],
      },
    });
    assert.equal(decided.statusCode, 204, decided.body);
    const notes = await notesOf(invoice.reference);
    assert.equal(notes.length, 1, 'one credit note for the claim');
    const cn = await doc(notes[0]);
    assert.equal(cn.kind, 'credit_note');
    assert.equal(cn.correctsInvoiceReference, invoice.reference);
    assert.equal(cn.reason, `Refund decided on claim ${ref}`);
    const item = invoice.lines.find((l: any) => l.orderReference === o.claimed && l.kind === 'item');
    const ship = invoice.lines.find((l: any) => l.orderReference === o.claimed && l.kind === 'shipping');
    assert.deepEqual(
      cn.lines.map((l: any) => [l.kind, l.netCents, l.claimReference]).sort(),
      [
        ['refund', -2 * item.unitPriceCents, ref],
        ['refund', -ship.netCents, ref],
      ].sort(),
    );
    const net = 2 * item.unitPriceCents + ship.netCents;
    assert.deepEqual([cn.net, cn.vat, cn.total], [-net, -Math.round(net * 0.21), -net - Math.round(net * 0.21)]);
    const entries = await t.db.query<{ invoice_id: string }>(
      "SELECT invoice_id FROM ledger_entries WHERE kind = 'refund' AND claim_id = $1",
      [ref],
    );
    assert.deepEqual(
      entries.map((e) => e.invoice_id),
      [cn.reference, cn.reference],
      'both refunds are on the credit note',
    );
  });

  it('an order canceled in production after its invoice is a credit note of that invoice', async () => {
    const before = await notesOf(invoice.reference);
    const res = await operator(t, 'POST', `/orders/${o.canceled}/cancel`, { reason: 'partner phoned: wrong artwork' });
    assert.equal(res.statusCode, 200, res.body);
    const notes = await notesOf(invoice.reference);
    assert.equal(notes.length, before.length + 1);
    const cn = await doc(notes.at(-1)!);
    const charged = invoice.lines
      .filter((l: any) => l.orderReference === o.canceled)
      .reduce((s: number, l: any) => s + l.netCents, 0);
    assert.equal(cn.net, -charged, 'the products and the shipping of the whole order');
    assert.match(cn.reason, /Canceled in production \(whole order\): partner phoned/);
    assert.ok(cn.lines.every((l: any) => l.orderReference === o.canceled && l.vat.ratePercent === 21));
  });

  it('a lowered line price is a credit note of the difference at the line VAT; again from the corrected price', async () => {
    const n = invoice.lines.findIndex((l: any) => l.orderReference === o.corrected && l.kind === 'item') + 1;
    const line = invoice.lines[n - 1];
    assert.equal(line.quantity, 3);
    const url = `/invoices/${invoice.reference}/price-corrections`;
    const first = await operator(t, 'POST', url, {
      line: n,
      unitPrice: line.unitPriceCents - 100,
      reason: 'promised discount',
    });
    assert.equal(first.statusCode, 200, first.body);
    const cn = first.data.invoice;
    assert.equal(cn.kind, 'credit_note');
    assert.equal(cn.correctsInvoiceReference, invoice.reference);
    assert.deepEqual([cn.net, cn.vat], [-300, -63]);
    assert.equal(cn.lines[0].quantity, 3);
    assert.equal(cn.lines[0].unitPriceCents, -100);
    assert.equal(cn.lines[0].sku, line.sku);
    assert.match(cn.lines[0].description, /^Line \d+ of INV-\d{4}-\d{6} \(.+\): EUR \d+\.\d\d to EUR \d+\.\d\d each$/);
    assert.equal(cn.reason, 'promised discount');

    const second = await operator(t, 'POST', url, { line: n, unitPrice: line.unitPriceCents - 150, reason: 'more' });
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.data.invoice.net, -150, 'from the corrected price: 50 cents times 3');

    const up = await operator(t, 'POST', url, { line: n, unitPrice: line.unitPriceCents, reason: 'back up' });
    assert.equal(up.statusCode, 400, up.body);
    assert.match(up.data.message, /lowers the price/);
    const refund = invoice.lines.findIndex((l: any) => l.kind !== 'item' && l.kind !== 'shipping');
    for (const bad of [invoice.lines.length + 1, ...(refund >= 0 ? [refund + 1] : [])]) {
      const res = await operator(t, 'POST', url, { line: bad, unitPrice: 0, reason: 'x' });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.data.message, /body\.line/);
    }
    const ledger = await t.db.query<{ amount_cents: string; invoice_id: string }>(
      "SELECT amount_cents, invoice_id FROM ledger_entries WHERE kind = 'adjustment' AND invoice_id = ANY($1::text[])",
      [[cn.reference, second.data.invoice.reference]],
    );
    assert.deepEqual(
      ledger.map((e) => Number(e.amount_cents)).sort(),
      [150, 300],
      'net back on the ledger, on the notes',
    );
  });

  it('a credit note cannot be price-corrected, and malformed bodies are 400', async () => {
    const [cn] = await notesOf(invoice.reference);
    const res = await operator(t, 'POST', `/invoices/${cn}/price-corrections`, { line: 1, unitPrice: 0, reason: 'x' });
    assert.equal(res.statusCode, 400, res.body);
    for (const body of [
      { line: 0, unitPrice: 1, reason: 'x' },
      { line: 1, unitPrice: -1, reason: 'x' },
      { line: 1, unitPrice: 1 },
    ]) {
      const r = await operator(t, 'POST', `/invoices/${invoice.reference}/price-corrections`, body);
      assert.equal(r.statusCode, 400, r.body);
    }
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MIGRATIONS_DIR } from '../../src/platform/db/migrate.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { pdfText, popplerMissing } from '../support/pdf-tools.ts';

const gross = (net: number) => net + Math.round(net * 0.21);

describe('credit notes are credited once', () => {
  let t: TestApp;
  let acc: string;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    t.clock.set('2026-10-05T09:00:00.000Z');
    acc = (await t.db.query<{ account_id: string }>("SELECT account_id FROM stores WHERE code = 'DEMO1'"))[0]
      .account_id;
  });
  after(() => t.close());

  /** An order of the demo NL account (21 % VAT) put into production; its net amount. */
  async function charged(code = 'DEMO1', quantity = 1, key = t.key): Promise<{ order: string; net: number }> {
    const order = await createOrder(
      t,
      {
        order: {
          storeReference: store(t, code),
          shippingKind: 'dropship',
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference: products(t).protector, quantity }],
        },
      },
      key,
    );
    assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
    const [e] = await t.db.query<{ amount_cents: string }>(
      "SELECT amount_cents FROM ledger_entries WHERE kind = 'charge' AND order_id = $1",
      [order],
    );
    return { order, net: -Number(e.amount_cents) };
  }
  const issue = async (month: string) => {
    const res = await operator(t, 'POST', '/invoices/issue', { month });
    assert.equal(res.statusCode, 200, res.body);
    return res.data.invoices as any[];
  };
  const balance = async () => (await operator(t, 'GET', `/accounts/${acc}/ledger?limit=1`)).data.balance as number;

  it('books the adjustment on the credit note itself; the next month’s invoice does not bill it again', async () => {
    const start = await balance();
    const october = await charged('DEMO1', 3);
    t.clock.set('2026-11-01T03:00:00.000Z');
    const inv1 = (await issue('2026-10')).find((i) => i.accountReference === acc);
    assert.equal(inv1.net, october.net);

    const cn = await operator(t, 'POST', `/invoices/${inv1.reference}/credit-notes`, {
      reason: 'price error',
      net: 1000,
    });
    assert.equal(cn.statusCode, 200, cn.body);
    const credit = cn.data.invoice;
    assert.deepEqual([credit.net, credit.vat, credit.total], [-1000, -210, -1210], 'the credit includes its VAT');
    const entries = (await operator(t, 'GET', `/accounts/${acc}/ledger?limit=100`)).data.entries;
    const adjustment = entries.filter((e: any) => e.kind === 'adjustment');
    assert.equal(adjustment.length, 1);
    assert.equal(adjustment[0].amount, 1000);
    assert.equal(adjustment[0].invoiceReference, credit.reference, 'stamped with the credit note in its transaction');

    t.clock.set('2026-11-10T09:00:00.000Z');
    const november = await charged();
    t.clock.set('2026-12-01T03:00:00.000Z');
    const inv2 = (await issue('2026-11')).find((i) => i.accountReference === acc);
    assert.deepEqual(
      [...new Set(inv2.lines.map((l: any) => l.orderReference))],
      [november.order],
      'only November’s order: the credit is not on it',
    );
    assert.equal(
      inv2.lines.reduce((s: number, l: any) => s + l.netCents, 0),
      november.net,
    );
    assert.ok(!inv2.lines.some((l: any) => /Credit note/.test(l.description)));
    // Over all documents the credit counts once, with its VAT.
    assert.equal(inv1.total + credit.total + inv2.total, gross(october.net) - 1210 + gross(november.net));
    assert.equal(await balance(), start - october.net + 1000 - november.net);
    const open = (await operator(t, 'GET', `/accounts/${acc}/ledger?limit=100`)).data.entries.filter(
      (e: any) => e.kind !== 'opening' && !e.invoiceReference,
    );
    assert.deepEqual(open, [], 'every entry is on exactly one document');

    if (!popplerMissing) {
      const pdf = pdfText((await operator(t, 'GET', `/invoices/${credit.reference}/pdf`)).rawPayload);
      assert.match(pdf, /-EUR 10\.00[\s\S]*-EUR 2\.10[\s\S]*-EUR 12\.10/);
      const next = pdfText((await operator(t, 'GET', `/invoices/${inv2.reference}/pdf`)).rawPayload);
      assert.ok(!next.includes(credit.number), 'the next invoice does not mention the credit note');
    }
  });

  it('never issues an INV invoice of zero or less: small credits wait as open credit for the next charges', async () => {
    const other = (await t.db.query<{ account_id: string }>("SELECT account_id FROM stores WHERE code = 'OTHER1'"))[0]
      .account_id;
    const org = t.seed.organizations[1].reference;
    const counter = async () =>
      Number(
        (await t.db.query<{ n: string }>("SELECT last_number AS n FROM invoice_counters WHERE series = 'INV-2026'"))[0]
          .n,
      );
    t.clock.set('2026-12-03T09:00:00.000Z');
    // A 4-cent refund (a claim's, booked as the claims module books it) and nothing else this month.
    const booked = await t.s.db.tx((tx) =>
      t.s.billing.creditRefund(tx, {
        organizationId: org,
        storeId: store(t, 'OTHER1'),
        claimId: 'Claim_00000000000000000000000004',
        orderId: 'Order_00000000000000000000000004',
        source: 'Claim_00000000000000000000000004:Order_00000000000000000000000004',
        amountCents: 4,
        description: 'Refund of a small difference',
      }),
    );
    assert.equal(booked, true);
    const before = await counter();
    t.clock.set('2027-01-01T03:00:00.000Z');
    const december = await issue('2026-12');
    assert.ok(!december.some((i) => i.accountReference === other), 'no invoice for credits alone');
    assert.equal(await counter(), before, 'no number is taken');
    const [{ n }] = await t.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM invoices WHERE kind = 'invoice' AND net_cents <= 0",
    );
    assert.equal(Number(n), 0, 'no INV document with a total of zero or less');
    const open = (await operator(t, 'GET', `/accounts/${other}/ledger?limit=100`)).data.entries.find(
      (e: any) => e.amount === 4,
    );
    assert.equal(open.invoiceReference, null, 'the credit stays open on the account');

    // January's charges take the credit, once.
    t.clock.set('2027-01-12T09:00:00.000Z');
    await charged('OTHER1', 1, t.otherKey);
    t.clock.set('2027-02-01T03:00:00.000Z');
    const [jan] = (await issue('2027-01')).filter((i) => i.accountReference === other);
    assert.equal(jan.number, 'INV-2027-000001');
    assert.equal(jan.lines.filter((l: any) => l.netCents === -4).length, 1, 'the carried credit, once');
    assert.equal(jan.lines[0].date, '2026-12-03', 'dated when it was booked');
    assert.equal(
      jan.net,
      jan.lines.reduce((s: number, l: any) => s + l.netCents, 0),
    );
    assert.ok(jan.net > 0);
    t.clock.set('2027-03-01T03:00:00.000Z');
    assert.deepEqual(await issue('2027-02'), []);
  });

  it('a refund of an order already invoiced is a credit note of that invoice, never a line of the next', async () => {
    t.clock.set('2027-03-10T09:00:00.000Z');
    const march = await charged('DEMO1', 2);
    t.clock.set('2027-04-01T03:00:00.000Z');
    const inv = (await issue('2027-03')).find((i) => i.accountReference === acc);
    t.clock.set('2027-04-03T09:00:00.000Z');
    const claimId = 'Claim_refundtestrefundtestrefund';
    const refund = (source: string) =>
      t.s.db.tx((tx) =>
        t.s.billing.creditRefund(tx, {
          organizationId: t.seed.organizations[0].reference,
          storeId: store(t, 'DEMO1'),
          claimId,
          orderId: march.order,
          source,
          amountCents: 500,
          description: 'Refund: damaged item',
        }),
      );
    assert.equal(await refund(`${claimId}:${march.order}`), true);
    assert.equal(await refund(`${claimId}:${march.order}`), false, 'the same refund twice is one credit note');
    const notes = await t.db.query<{ id: string; number: string; corrects_invoice_id: string; total_cents: string }>(
      "SELECT id, number, corrects_invoice_id, total_cents FROM invoices WHERE kind = 'credit_note' AND corrects_invoice_id = $1",
      [inv.reference],
    );
    assert.equal(notes.length, 1);
    assert.equal(Number(notes[0].total_cents), -gross(500));
    const cn = (await operator(t, 'GET', `/invoices/${notes[0].id}`)).data.invoice;
    assert.equal(cn.lines[0].claimReference, claimId);
    assert.equal(cn.lines[0].orderReference, march.order);
    assert.deepEqual(cn.lines[0].vat, { treatment: 'domestic', category: 'S', ratePercent: 21 });
    const [entry] = await t.db.query<{ invoice_id: string }>(
      "SELECT invoice_id FROM ledger_entries WHERE kind = 'refund' AND order_id = $1",
      [march.order],
    );
    assert.equal(entry.invoice_id, notes[0].id, 'the refund is on its credit note');
    await charged('DEMO1', 1);
    t.clock.set('2027-05-01T03:00:00.000Z');
    const april = (await issue('2027-04')).find((i) => i.accountReference === acc);
    assert.ok(!april.lines.some((l: any) => l.claimReference === claimId), 'not billed again');
  });

  it('the migration stamps credit-note adjustments that were booked without their credit note', async () => {
    const [cn] = await t.db.query<{ id: string }>("SELECT id FROM invoices WHERE kind = 'credit_note' LIMIT 1");
    await t.db.query("UPDATE ledger_entries SET invoice_id = NULL WHERE kind = 'adjustment' AND source = $1", [cn.id]);
    await t.db.exec(readFileSync(join(MIGRATIONS_DIR, '0040_credit_note_adjustments.sql'), 'utf8'));
    const [e] = await t.db.query<{ invoice_id: string }>(
      "SELECT invoice_id FROM ledger_entries WHERE kind = 'adjustment' AND source = $1",
      [cn.id],
    );
    assert.equal(e.invoice_id, cn.id);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { invoicePdf } from '../../src/modules/billing/pdf.ts';
import type { InvoiceRow } from '../../src/modules/billing/repo.ts';
import { parseSeller } from '../../src/config-seller.ts';

const SELLER = parseSeller({}, (m) => new Error(m));
import { overprinted, pdfText, pdfWords, popplerMissing } from '../support/pdf-tools.ts';

const long = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);

/** An invoice whose buyer has every text at its limit, and many long lines. */
function bigInvoice(lines: number): InvoiceRow {
  return {
    id: 'Invoice_01',
    seq: 1,
    organization_id: 'Organization_01',
    account_id: 'Account_01jabcdefghjkmnpqrstvwxyz',
    kind: 'invoice',
    number: 'INV-2026-000042',
    corrects_invoice_id: null,
    period_start: '2026-10-01',
    period_end: '2026-11-01',
    issued_at: new Date('2026-11-01T03:00:00Z'),
    due_at: new Date('2026-11-15T03:00:00Z'),
    buyer: {
      legalEntity: `${long('Legalentitynamewithoutspaces', 100)} ${long('and more words ', 99)}`,
      vatNumber: long('DE123456789', 30),
      billingAddress: {
        company: long('Company', 50),
        firstname: long('Firstname', 50),
        lastname: long('Lastname', 50),
        streetname: long('Street ', 60),
        housenumber: '1234567890',
        zipcode: '123456789012',
        city: long('City', 50),
        state: long('State', 50),
        countryCode: 'DE',
      },
      accountName: long('Accountname ', 200),
    },
    vat_treatment: 'reverse_charge',
    vat_rate_percent: 0,
    seller: null,
    vat_breakdown: [],
    lines: Array.from({ length: lines }, (_, i) => ({
      description: long('Descriptionwithoutanybreaks', 300),
      orderReference: `Order_0${String(i).padStart(2, '0')}wwwwwwwwwwwwwwwwwwwwwww`,
      claimReference: null,
      date: '2026-10-01',
      netCents: 100_000_000,
    })),
    net_cents: lines * 100_000_000,
    vat_cents: 0,
    total_cents: lines * 100_000_000,
    reason: null,
  };
}

describe('invoice PDF', () => {
  it('a long buyer name pushes the table down instead of running over it; totals are never overprinted', {
    skip: popplerMissing,
  }, async () => {
    for (const n of [2, 40]) {
      const pdf = await invoicePdf(bigInvoice(n), null, SELLER);
      assert.deepEqual(overprinted(pdf), [], `${n} lines`);
      const { words } = pdfWords(pdf);
      const bill = words.filter((w) => w.page === 1 && w.xMin < 330 && w.yMin > 140 && w.yMax < 250);
      const head = words.find((w) => w.text === 'Description')!;
      assert.ok(bill.length > 0 && head.page === 1);
      const account = words.find((w) => w.text === 'Account:')!;
      assert.ok(account.yMax < head.yMin, 'the account line is above the table head');
      const text = pdfText(pdf);
      for (let i = 0; i < n; i++) assert.ok(text.includes(`Order_0${String(i).padStart(2, '0')}ww`), `line ${i}`);
      assert.ok(text.includes(`EUR ${(n * 1_000_000).toLocaleString('en-GB')}.00`), 'the total');
      assert.match(text, /Reverse\s+charge/);
      assert.match(text, /Article 138\(1\)/);
      assert.doesNotMatch(text, /196/);
    }
  });
});

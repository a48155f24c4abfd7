import type { InvoiceRow, LedgerRow } from './repo.ts';

/** The ledger entry and invoice as the APIs show them. */
export const toEntry = (e: LedgerRow) => ({
  reference: e.id,
  kind: e.kind,
  /** EUR cents: charges negative, refunds and payments positive. */
  amount: e.amount_cents,
  description: e.description,
  orderReference: e.order_id,
  claimReference: e.claim_id,
  /** Test environment: what would have been booked in production; not in the balance, never invoiced. */
  simulated: e.simulated,
  invoiceReference: e.invoice_id,
  created: e.created_at.toISOString(),
});

export const toInvoice = (i: InvoiceRow) => ({
  reference: i.id,
  kind: i.kind,
  number: i.number,
  accountReference: i.account_id,
  correctsInvoiceReference: i.corrects_invoice_id,
  periodStart: i.period_start,
  periodEnd: i.period_end,
  issued: i.issued_at.toISOString(),
  due: i.due_at.toISOString(),
  vatTreatment: i.vat_treatment,
  vatRatePercent: i.vat_rate_percent,
  /** Totals by VAT category and rate, each with the wording and legal reference the invoice prints. */
  vatBreakdown: i.vat_breakdown.map((g) => ({
    category: g.category,
    treatment: g.treatment,
    ratePercent: g.ratePercent,
    net: g.netCents,
    vat: g.vatCents,
    note: g.wording,
    legalReference: g.legalReference,
  })),
  net: i.net_cents,
  vat: i.vat_cents,
  total: i.total_cents,
  lines: i.lines,
  reason: i.reason,
});

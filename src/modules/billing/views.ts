import type { InvoiceRow, LedgerRow } from './repo.ts';
import type { BankPaymentRow } from './repo-payments.ts';

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

/** A payment of an imported bank statement, as the operator API shows it. */
export const toBankPayment = (r: BankPaymentRow) => ({
  reference: r.id,
  status: r.status,
  /** How it was matched: `invoice_number`, `account_reference`, `amount` (the import), `operator`. */
  matchRule: r.match_rule,
  detail: r.detail,
  bankAccount: r.bank_account,
  entryReference: r.entry_reference,
  bookingDate: r.booking_date,
  /** Cents of `currency`. */
  amount: r.amount_cents,
  currency: r.currency,
  debtorName: r.debtor_name,
  debtorAccount: r.debtor_account,
  remittance: r.remittance,
  accountReference: r.account_id,
  invoiceReference: r.invoice_id,
  ledgerEntryReference: r.payment_entry_id,
  decidedBy: r.decided_by,
  decided: r.decided_at?.toISOString() ?? null,
  created: r.created_at.toISOString(),
});
export type BankPaymentView = ReturnType<typeof toBankPayment>;

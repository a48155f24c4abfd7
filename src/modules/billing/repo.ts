import type { Executor } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';
import type { SellerConfig } from '../../config-seller.ts';
import type { ChargeDetail, InvoiceLine, VatGroup } from './invoice-lines.ts';
import type { VatStatus } from './repo-tax.ts';
import type { InvoiceVatTreatment } from './vat.ts';

export type { InvoiceLine } from './invoice-lines.ts';

export type EntryKind = 'opening' | 'charge' | 'refund' | 'payment' | 'adjustment';

export interface LedgerRow {
  id: string;
  seq: number;
  organization_id: string;
  account_id: string;
  kind: EntryKind;
  amount_cents: number;
  source: string;
  order_id: string | null;
  claim_id: string | null;
  description: string;
  simulated: boolean;
  invoice_id: string | null;
  created_at: Date;
  /** A charge's items, shipping, store and destination (null for other entries). */
  detail: ChargeDetail | null;
}

export interface InvoiceRow {
  id: string;
  seq: number;
  organization_id: string;
  account_id: string;
  kind: 'invoice' | 'credit_note';
  number: string;
  corrects_invoice_id: string | null;
  period_start: string;
  period_end: string;
  issued_at: Date;
  due_at: Date;
  buyer: { legalEntity: string; vatNumber: string | null; billingAddress: Record<string, string>; accountName: string };
  /** `reverse_charge`: intra-Community supply, the buyer accounts for the VAT. */
  vat_treatment: InvoiceVatTreatment;
  /** The highest rate on the document (its only one unless `mixed`). */
  vat_rate_percent: number;
  /** The seller as it was when the document was issued; null on documents issued before it was kept. */
  seller: SellerConfig | null;
  /** Totals by VAT category and rate; empty on documents issued before they were kept. */
  vat_breakdown: VatGroup[];
  lines: InvoiceLine[];
  net_cents: number;
  vat_cents: number;
  total_cents: number;
  reason: string | null;
}

// bigint columns come back as strings from PostgreSQL; money here stays far below 2^53.
const num = <T extends object>(r: T, ...keys: Array<keyof T>): T => {
  for (const k of keys) (r as Record<keyof T, unknown>)[k] = Number(r[k]);
  return r;
};
const entry = (r: LedgerRow) => num(r, 'amount_cents', 'seq');
const invoice = (r: InvoiceRow) => {
  num(r, 'net_cents', 'vat_cents', 'total_cents', 'seq');
  for (const k of ['period_start', 'period_end'] as const) {
    const v = r[k] as unknown;
    if (v instanceof Date) r[k] = v.toISOString().slice(0, 10);
  }
  return r;
};

/** All SQL of the money ledger and invoices. */
export const billingRepo = {
  /**
   * Books an entry once per (kind, source) and moves the account's (or, simulated, the would-be)
   * balance by it in the same statement. `mustCover`: a prepaid account refuses it when its balance
   * would drop below zero. `invoice_id` set: the entry is on that document already (a credit note's
   * adjustment), so no monthly invoice bills it.
   */
  async book(ex: Executor, e: Omit<LedgerRow, 'seq'>, mustCover: boolean): Promise<'booked' | 'repeat' | 'uncovered'> {
    const rows = await ex.query<{ id: string }>(
      `WITH acc AS (
         UPDATE accounts SET
           balance_cents = balance_cents + CASE WHEN $9 THEN 0 ELSE $5::bigint END,
           simulated_balance_cents = simulated_balance_cents + CASE WHEN $9 THEN $5::bigint ELSE 0 END
         WHERE id = $3
           AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE kind = $4 AND source = $6)
           AND (NOT $11 OR NOT prepaid OR $9 OR balance_cents + $5::bigint >= 0)
         RETURNING id)
       INSERT INTO ledger_entries (id, organization_id, account_id, kind, amount_cents, source, order_id, claim_id, description, simulated, created_at, invoice_id, detail)
       SELECT $1, $2, acc.id, $4, $5, $6, $7, $8, $10, $9, $12, $13, $14 FROM acc
       RETURNING id`,
      [
        e.id,
        e.organization_id,
        e.account_id,
        e.kind,
        e.amount_cents,
        e.source,
        e.order_id,
        e.claim_id,
        e.simulated,
        e.description,
        mustCover,
        e.created_at,
        e.invoice_id,
        e.detail === null ? null : JSON.stringify(e.detail),
      ],
    );
    if (rows.length === 1) return 'booked';
    const seen = await ex.query('SELECT 1 FROM ledger_entries WHERE kind = $1 AND source = $2', [e.kind, e.source]);
    return seen.length > 0 ? 'repeat' : 'uncovered';
  },
  async lockAccount(ex: Executor, id: string): Promise<void> {
    await ex.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [id]);
  },
  async entries(ex: Executor, accountId: string, ks: Keyset): Promise<LedgerRow[]> {
    const rows = await ex.query<LedgerRow>(
      'SELECT * FROM ledger_entries WHERE account_id = $1 AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3',
      [accountId, ks.after, ks.limit],
    );
    return rows.map(entry);
  },
  async sum(ex: Executor, accountId: string): Promise<{ real: number; simulated: number }> {
    const [r] = await ex.query<{ real: string; simulated: string }>(
      `SELECT coalesce(sum(amount_cents) FILTER (WHERE NOT simulated), 0) AS real,
              coalesce(sum(amount_cents) FILTER (WHERE simulated), 0) AS simulated
       FROM ledger_entries WHERE account_id = $1`,
      [accountId],
    );
    return { real: Number(r.real), simulated: Number(r.simulated) };
  },
  /** Entries an invoice of the period bills: booked, not yet invoiced, before the period's end. */
  async billable(ex: Executor, accountId: string, before: Date): Promise<LedgerRow[]> {
    const rows = await ex.query<LedgerRow>(
      `SELECT * FROM ledger_entries WHERE account_id = $1 AND invoice_id IS NULL AND NOT simulated
         AND kind IN ('charge', 'refund', 'adjustment') AND created_at < $2 ORDER BY seq FOR UPDATE`,
      [accountId, before],
    );
    return rows.map(entry);
  },
  /**
   * The invoice an order's charge is on, or null while it is not invoiced. A combined order's
   * shipping share can be charged, and invoiced, after its goods: the goods' charge (the first) names
   * the invoice a refund corrects.
   */
  async chargeInvoiceOf(ex: Executor, orderId: string): Promise<string | null> {
    const [r] = await ex.query<{ invoice_id: string }>(
      `SELECT invoice_id FROM ledger_entries WHERE kind = 'charge' AND order_id = $1 AND invoice_id IS NOT NULL
         AND NOT simulated ORDER BY seq LIMIT 1`,
      [orderId],
    );
    return r?.invoice_id ?? null;
  },
  /** The charge details of orders (what refunds of them are decided by). */
  async chargeDetails(ex: Executor, accountId: string, orderIds: string[]): Promise<Map<string, ChargeDetail>> {
    if (orderIds.length === 0) return new Map();
    const rows = await ex.query<{ order_id: string; detail: ChargeDetail }>(
      `SELECT order_id, detail FROM ledger_entries
       WHERE account_id = $1 AND kind = 'charge' AND order_id = ANY($2::text[]) AND detail IS NOT NULL`,
      [accountId, orderIds],
    );
    return new Map(rows.map((r) => [r.order_id, r.detail]));
  },
  async markInvoiced(ex: Executor, ids: string[], invoiceId: string): Promise<void> {
    await ex.query('UPDATE ledger_entries SET invoice_id = $2 WHERE id = ANY($1::text[])', [ids, invoiceId]);
  },
  /** Accounts with something to bill before `before` (production only: simulated entries never are). */
  async accountsToBill(ex: Executor, before: Date): Promise<string[]> {
    const rows = await ex.query<{ account_id: string }>(
      `SELECT DISTINCT account_id FROM ledger_entries WHERE invoice_id IS NULL AND NOT simulated
         AND kind IN ('charge', 'refund', 'adjustment') AND created_at < $1`,
      [before],
    );
    return rows.map((r) => r.account_id);
  },
  /** The next number of a series, gap-free: the counter row is taken in the issuing transaction. */
  async nextNumber(ex: Executor, series: string): Promise<number> {
    const [r] = await ex.query<{ last_number: number }>(
      `INSERT INTO invoice_counters (series, last_number) VALUES ($1, 1)
       ON CONFLICT (series) DO UPDATE SET last_number = invoice_counters.last_number + 1
       RETURNING last_number`,
      [series],
    );
    return r.last_number;
  },
  async insertInvoice(ex: Executor, i: Omit<InvoiceRow, 'seq'>): Promise<void> {
    await ex.query(
      `INSERT INTO invoices (id, organization_id, account_id, kind, number, corrects_invoice_id, period_start, period_end,
         issued_at, due_at, buyer, vat_treatment, vat_rate_percent, lines, net_cents, vat_cents, total_cents, reason,
         seller, vat_breakdown)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
      [
        i.id,
        i.organization_id,
        i.account_id,
        i.kind,
        i.number,
        i.corrects_invoice_id,
        i.period_start,
        i.period_end,
        i.issued_at,
        i.due_at,
        JSON.stringify(i.buyer),
        i.vat_treatment,
        i.vat_rate_percent,
        JSON.stringify(i.lines),
        i.net_cents,
        i.vat_cents,
        i.total_cents,
        i.reason,
        i.seller === null ? null : JSON.stringify(i.seller),
        JSON.stringify(i.vat_breakdown),
      ],
    );
  },
  async invoiceOfMonth(ex: Executor, accountId: string, periodStart: string): Promise<InvoiceRow | null> {
    const [r] = await ex.query<InvoiceRow>(
      `SELECT * FROM invoices WHERE account_id = $1 AND period_start = $2 AND kind = 'invoice'`,
      [accountId, periodStart],
    );
    return r ? invoice(r) : null;
  },
  /** `orgId` null: any organization (operator). */
  async invoice(ex: Executor, orgId: string | null, id: string): Promise<InvoiceRow | null> {
    const [r] = await ex.query<InvoiceRow>(
      'SELECT * FROM invoices WHERE id = $1 AND ($2::text IS NULL OR organization_id = $2)',
      [id, orgId],
    );
    return r ? invoice(r) : null;
  },
  async invoices(ex: Executor, accountId: string, ks: Keyset): Promise<InvoiceRow[]> {
    const rows = await ex.query<InvoiceRow>(
      'SELECT * FROM invoices WHERE account_id = $1 AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3',
      [accountId, ks.after, ks.limit],
    );
    return rows.map(invoice);
  },
  /** The credit notes of an invoice, oldest first. */
  async creditNotesOf(ex: Executor, invoiceId: string): Promise<InvoiceRow[]> {
    const rows = await ex.query<InvoiceRow>(
      `SELECT * FROM invoices WHERE corrects_invoice_id = $1 AND kind = 'credit_note' ORDER BY seq`,
      [invoiceId],
    );
    return rows.map(invoice);
  },
  async creditedOf(ex: Executor, invoiceId: string): Promise<number> {
    const [r] = await ex.query<{ n: string }>(
      `SELECT coalesce(sum(total_cents), 0) AS n FROM invoices WHERE corrects_invoice_id = $1`,
      [invoiceId],
    );
    return Number(r.n);
  },
};

/** The account's billing record, read here for any organization (operator and invoicing). */
export interface BillingAccountRow {
  id: string;
  organization_id: string;
  name: string;
  prepaid: boolean;
  payment_term_days: number;
  legal_entity_name: string;
  vat_number: string | null;
  billing_address: Record<string, string>;
  balance_cents: number;
  vat_status: VatStatus;
  vat_checked_at: Date | null;
  vat_checked_by: string | null;
  vat_check_detail: string | null;
}
export const accountsRepo = {
  async account(ex: Executor, orgId: string | null, id: string): Promise<BillingAccountRow | null> {
    const [r] = await ex.query<BillingAccountRow>(
      'SELECT * FROM accounts WHERE id = $1 AND ($2::text IS NULL OR organization_id = $2)',
      [id, orgId],
    );
    return r ? num(r, 'balance_cents') : null;
  },
};

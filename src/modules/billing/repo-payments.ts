import type { Executor } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';

/** What is paid and credited of an invoice (credit notes' totals are negative). */
export interface Settlement {
  paid_cents: number;
  credited_cents: number;
}

export interface OpenInvoiceRow {
  id: string;
  number: string;
  account_id: string;
  organization_id: string;
  outstanding_cents: number;
}

export type BankPaymentStatus = 'matched' | 'unmatched' | 'assigned' | 'dismissed';
export type MatchRule = 'invoice_number' | 'account_reference' | 'amount' | 'operator';

export interface BankPaymentRow {
  id: string;
  seq: number;
  statement_id: string;
  bank_account: string;
  entry_reference: string;
  booking_date: string;
  amount_cents: number;
  currency: string;
  debtor_name: string | null;
  debtor_account: string | null;
  remittance: string;
  status: BankPaymentStatus;
  match_rule: MatchRule | null;
  detail: string;
  account_id: string | null;
  invoice_id: string | null;
  payment_entry_id: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
}

const toBankPayment = (r: BankPaymentRow): BankPaymentRow => {
  r.amount_cents = Number(r.amount_cents);
  r.seq = Number(r.seq);
  const d = r.booking_date as unknown;
  if (d instanceof Date) r.booking_date = d.toISOString().slice(0, 10);
  return r;
};

// Outstanding of an invoice: its total, less its credit notes, less what payments paid of it.
const OUTSTANDING = `i.total_cents
  + coalesce((SELECT sum(c.total_cents) FROM invoices c WHERE c.corrects_invoice_id = i.id), 0)
  - coalesce((SELECT sum(a.amount_cents) FROM payment_allocations a WHERE a.invoice_id = i.id), 0)`;

/** All SQL of payments: their allocation to invoices and the imported bank statements. */
export const paymentsRepo = {
  async settlements(ex: Executor, invoiceIds: string[]): Promise<Map<string, Settlement>> {
    if (invoiceIds.length === 0) return new Map();
    const rows = await ex.query<{ id: string; paid: string; credited: string }>(
      `SELECT i.id,
         coalesce((SELECT sum(a.amount_cents) FROM payment_allocations a WHERE a.invoice_id = i.id), 0) AS paid,
         coalesce((SELECT sum(c.total_cents) FROM invoices c WHERE c.corrects_invoice_id = i.id), 0) AS credited
       FROM invoices i WHERE i.id = ANY($1::text[])`,
      [invoiceIds],
    );
    return new Map(rows.map((r) => [r.id, { paid_cents: Number(r.paid), credited_cents: Number(r.credited) }]));
  },
  /** The account's invoices with something left to pay, the oldest due first. */
  async openInvoices(ex: Executor, accountId: string): Promise<OpenInvoiceRow[]> {
    const rows = await ex.query<OpenInvoiceRow>(
      `SELECT * FROM (SELECT i.id, i.number, i.account_id, i.organization_id, i.due_at, i.seq, ${OUTSTANDING} AS outstanding_cents
         FROM invoices i WHERE i.account_id = $1 AND i.kind = 'invoice') o
       WHERE outstanding_cents > 0 ORDER BY due_at, seq`,
      [accountId],
    );
    return rows.map((r) => ({ ...r, outstanding_cents: Number(r.outstanding_cents) }));
  },
  /** Every open invoice, of any account, with exactly this much left to pay. */
  async openInvoicesOfAmount(ex: Executor, amountCents: number): Promise<OpenInvoiceRow[]> {
    const rows = await ex.query<OpenInvoiceRow>(
      `SELECT * FROM (SELECT i.id, i.number, i.account_id, i.organization_id, i.seq, ${OUTSTANDING} AS outstanding_cents
         FROM invoices i WHERE i.kind = 'invoice' AND i.total_cents >= $1) o
       WHERE outstanding_cents = $1 ORDER BY seq LIMIT 10`,
      [amountCents],
    );
    return rows.map((r) => ({ ...r, outstanding_cents: Number(r.outstanding_cents) }));
  },
  async invoiceByNumber(
    ex: Executor,
    number: string,
  ): Promise<{ id: string; account_id: string; kind: string } | null> {
    const [r] = await ex.query<{ id: string; account_id: string; kind: string }>(
      'SELECT id, account_id, kind FROM invoices WHERE number = $1',
      [number],
    );
    return r ?? null;
  },
  /** The account's payments with money not yet put against an invoice, the oldest first. */
  async unallocatedPayments(ex: Executor, accountId: string): Promise<Array<{ id: string; left_cents: number }>> {
    const rows = await ex.query<{ id: string; left_cents: string }>(
      `SELECT e.id, e.amount_cents - coalesce(sum(a.amount_cents), 0) AS left_cents
       FROM ledger_entries e LEFT JOIN payment_allocations a ON a.payment_entry_id = e.id
       WHERE e.account_id = $1 AND e.kind = 'payment' AND NOT e.simulated AND e.amount_cents > 0
       GROUP BY e.id, e.seq, e.amount_cents HAVING e.amount_cents - coalesce(sum(a.amount_cents), 0) > 0
       ORDER BY e.seq`,
      [accountId],
    );
    return rows.map((r) => ({ id: r.id, left_cents: Number(r.left_cents) }));
  },
  async allocate(
    ex: Executor,
    a: { accountId: string; invoiceId: string; paymentEntryId: string | null; amountCents: number; at: Date },
  ): Promise<void> {
    await ex.query(
      `INSERT INTO payment_allocations (account_id, invoice_id, payment_entry_id, amount_cents, created_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [a.accountId, a.invoiceId, a.paymentEntryId, a.amountCents, a.at],
    );
  },
  /** The invoices a payment was put against, with how much. */
  async allocationsOf(ex: Executor, paymentEntryId: string): Promise<Array<{ number: string; amount_cents: number }>> {
    const rows = await ex.query<{ number: string; amount_cents: string }>(
      `SELECT i.number, a.amount_cents FROM payment_allocations a JOIN invoices i ON i.id = a.invoice_id
       WHERE a.payment_entry_id = $1 ORDER BY a.id`,
      [paymentEntryId],
    );
    return rows.map((r) => ({ number: r.number, amount_cents: Number(r.amount_cents) }));
  },

  /** Test environment: the simulated charges, refunds and adjustments per Amsterdam month, newest first. */
  async simulatedMonths(
    ex: Executor,
    accountId: string,
  ): Promise<Array<{ month: string; net: number; entries: number }>> {
    const rows = await ex.query<{ month: string; net: string; entries: number }>(
      `SELECT to_char(created_at AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM') AS month,
              -sum(amount_cents) AS net, count(*)::int AS entries
       FROM ledger_entries WHERE account_id = $1 AND simulated AND kind IN ('charge', 'refund', 'adjustment')
       GROUP BY 1 ORDER BY 1 DESC LIMIT 24`,
      [accountId],
    );
    return rows.map((r) => ({ month: r.month, net: Number(r.net), entries: r.entries }));
  },

  // ---- bank statements ----
  /** The statement's row, inserted the first time it is seen. */
  async statement(
    ex: Executor,
    s: { id: string; bankAccount: string; statementId: string; messageId: string; at: Date; by: string },
  ): Promise<{ id: string; fresh: boolean }> {
    const [inserted] = await ex.query<{ id: string }>(
      `INSERT INTO bank_statements (id, bank_account, statement_id, message_id, created_at, imported_by)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (bank_account, statement_id) DO NOTHING RETURNING id`,
      [s.id, s.bankAccount, s.statementId, s.messageId, s.at, s.by],
    );
    if (inserted) return { id: inserted.id, fresh: true };
    const [seen] = await ex.query<{ id: string }>(
      'SELECT id FROM bank_statements WHERE bank_account = $1 AND statement_id = $2',
      [s.bankAccount, s.statementId],
    );
    return { id: seen.id, fresh: false };
  },
  /** Inserts the payment unless its entry was imported before; true when it is new. */
  async insertBankPayment(ex: Executor, p: Omit<BankPaymentRow, 'seq'>): Promise<boolean> {
    const rows = await ex.query(
      `INSERT INTO bank_payments (id, statement_id, bank_account, entry_reference, booking_date, amount_cents, currency,
         debtor_name, debtor_account, remittance, status, match_rule, detail, account_id, invoice_id, payment_entry_id,
         decided_by, decided_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
       ON CONFLICT (bank_account, entry_reference) DO NOTHING RETURNING id`,
      [
        p.id,
        p.statement_id,
        p.bank_account,
        p.entry_reference,
        p.booking_date,
        p.amount_cents,
        p.currency,
        p.debtor_name,
        p.debtor_account,
        p.remittance,
        p.status,
        p.match_rule,
        p.detail,
        p.account_id,
        p.invoice_id,
        p.payment_entry_id,
        p.decided_by,
        p.decided_at,
        p.created_at,
      ],
    );
    return rows.length === 1;
  },
  async decideBankPayment(
    ex: Executor,
    id: string,
    d: {
      status: BankPaymentStatus;
      matchRule: MatchRule | null;
      detail: string;
      accountId: string | null;
      invoiceId: string | null;
      paymentEntryId: string | null;
      by: string | null;
      at: Date | null;
    },
  ): Promise<void> {
    await ex.query(
      `UPDATE bank_payments SET status = $2, match_rule = $3, detail = $4, account_id = $5, invoice_id = $6,
         payment_entry_id = $7, decided_by = $8, decided_at = $9 WHERE id = $1`,
      [id, d.status, d.matchRule, d.detail, d.accountId, d.invoiceId, d.paymentEntryId, d.by, d.at],
    );
  },
  async bankPayment(ex: Executor, id: string, forUpdate = false): Promise<BankPaymentRow | null> {
    const [r] = await ex.query<BankPaymentRow>(
      `SELECT * FROM bank_payments WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return r ? toBankPayment(r) : null;
  },
  /** Newest first; `status` null: every status. */
  async bankPayments(ex: Executor, status: BankPaymentStatus | null, ks: Keyset): Promise<BankPaymentRow[]> {
    const rows = await ex.query<BankPaymentRow>(
      `SELECT * FROM bank_payments WHERE ($1::text IS NULL OR status = $1) AND ($2::bigint IS NULL OR seq < $2)
       ORDER BY seq DESC LIMIT $3`,
      [status, ks.after, ks.limit],
    );
    return rows.map(toBankPayment);
  },
  async bankPaymentsOfStatement(ex: Executor, statementId: string): Promise<BankPaymentRow[]> {
    const rows = await ex.query<BankPaymentRow>('SELECT * FROM bank_payments WHERE statement_id = $1 ORDER BY seq', [
      statementId,
    ]);
    return rows.map(toBankPayment);
  },
};

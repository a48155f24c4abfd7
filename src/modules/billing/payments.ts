import type { Executor } from '../../platform/db/index.ts';
import { badRequest, mustFind } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { BillingDeps } from './deps.ts';
import type { BookFn } from './book.ts';
import { type BillingAccountRow, type InvoiceRow, accountsRepo, billingRepo as repo } from './repo.ts';
import { type Settlement, paymentsRepo } from './repo-payments.ts';

export type PaymentStatus = 'open' | 'partially_paid' | 'paid' | 'overdue';

/** What an invoice shows of its payment. Credit notes have none: they lower the invoice they correct. */
export interface InvoicePayment {
  status: PaymentStatus;
  /** EUR cents paid (by payments, or from a prepaid balance). */
  paid: number;
  /** EUR cents credited by credit notes (a positive number). */
  credited: number;
  /** EUR cents still to pay: total − credited − paid, never below 0. */
  outstanding: number;
}

/**
 * The payment state by the account's payment terms, kept on the invoice as its due date when it was
 * issued: `paid` when nothing is left (paid, or credited), `overdue` when something is left after
 * the due date (partly paid or not), `partially_paid` before it when some is paid, `open` otherwise.
 */
export function paymentOf(
  inv: { kind: string; total_cents: number; due_at: Date },
  s: Settlement | undefined,
  now: Date,
): InvoicePayment | null {
  if (inv.kind !== 'invoice') return null;
  const paid = s?.paid_cents ?? 0;
  const credited = -(s?.credited_cents ?? 0);
  const outstanding = Math.max(0, inv.total_cents - credited - paid);
  const status: PaymentStatus =
    outstanding === 0
      ? 'paid'
      : now.getTime() > inv.due_at.getTime()
        ? 'overdue'
        : paid > 0
          ? 'partially_paid'
          : 'open';
  return { status, paid, credited, outstanding };
}

export interface Allocation {
  invoiceId: string;
  number: string;
  paymentEntryId: string | null;
  amountCents: number;
}

/**
 * Puts the account's money against its open invoices, in the caller's transaction (which holds the
 * account's lock). Invoiced accounts: the payments not yet used, oldest first, go to the invoices
 * named in `preferred` first, then to the others by due date; what is left stays as credit for the
 * next invoice. Prepaid accounts paid before production: their invoices are settled from the balance.
 */
export async function settleAccount(
  tx: Executor,
  accountId: string,
  at: Date,
  preferred: string[] = [],
): Promise<Allocation[]> {
  const open = await paymentsRepo.openInvoices(tx, accountId);
  if (open.length === 0) return [];
  const made: Allocation[] = [];
  const acc = (await accountsRepo.account(tx, null, accountId))!;
  if (acc.prepaid) {
    for (const inv of open) {
      await paymentsRepo.allocate(tx, {
        accountId,
        invoiceId: inv.id,
        paymentEntryId: null,
        amountCents: inv.outstanding_cents,
        at,
      });
      made.push({ invoiceId: inv.id, number: inv.number, paymentEntryId: null, amountCents: inv.outstanding_cents });
    }
    return made;
  }
  const rank = (id: string) => {
    const i = preferred.indexOf(id);
    return i === -1 ? preferred.length : i;
  };
  const invoices = open.map((inv, i) => ({ ...inv, i })).sort((a, b) => rank(a.id) - rank(b.id) || a.i - b.i);
  const credit = await paymentsRepo.unallocatedPayments(tx, accountId);
  let p = 0;
  for (const inv of invoices) {
    let due = inv.outstanding_cents;
    while (due > 0 && p < credit.length) {
      const take = Math.min(due, credit[p].left_cents);
      await paymentsRepo.allocate(tx, {
        accountId,
        invoiceId: inv.id,
        paymentEntryId: credit[p].id,
        amountCents: take,
        at,
      });
      made.push({ invoiceId: inv.id, number: inv.number, paymentEntryId: credit[p].id, amountCents: take });
      due -= take;
      credit[p].left_cents -= take;
      if (credit[p].left_cents === 0) p++;
    }
    if (p >= credit.length) break;
  }
  return made;
}

/** Money received: booked, put against invoices, and the invoices' payment state. */
export function paymentUseCases(
  deps: BillingDeps,
  book: BookFn,
  account: (ex: Executor, orgId: string | null, ref: string) => Promise<BillingAccountRow>,
) {
  const { db, clock } = deps;
  const simulated = deps.config.env === 'test';

  /** An invoice (not a credit note) of the account: what a payment may name. */
  async function invoiceOfAccount(tx: Executor, accountId: string, ref: string): Promise<InvoiceRow> {
    const inv = mustFind(isReference('Invoice', ref) ? await repo.invoice(tx, null, ref) : null, 'Invoice', ref);
    if (inv.account_id !== accountId || inv.kind !== 'invoice')
      throw badRequest(`${inv.number} is not an invoice of account ${accountId}`);
    return inv;
  }

  /**
   * Books money received on the account's ledger, once per `source`, and puts it against its open
   * invoices (`preferred` first), in the caller's transaction, which holds the account's lock.
   */
  async function receive(
    tx: Executor,
    acc: BillingAccountRow,
    p: { amountCents: number; note: string; source: string; preferred?: string[] },
  ) {
    const id = newReference('Ledgerentry');
    const booked = await book(tx, {
      id,
      organizationId: acc.organization_id,
      accountId: acc.id,
      kind: 'payment',
      amountCents: p.amountCents,
      source: p.source,
      description: p.note,
    });
    // Every caller books a new source: a repeat is a defect, not an input error.
    if (booked !== 'booked') throw new Error(`payment ${p.source} was not booked (${booked})`);
    // Prepaid money is a top-up: it pays orders at production start, not invoices.
    const allocations = acc.prepaid ? [] : await settleAccount(tx, acc.id, clock.now(), p.preferred ?? []);
    const mine = allocations.filter((a) => a.paymentEntryId === id);
    const used = mine.reduce((s, a) => s + a.amountCents, 0);
    return {
      reference: id,
      amount: p.amountCents,
      allocations: mine.map((a) => ({ invoiceReference: a.invoiceId, number: a.number, amount: a.amountCents })),
      /** What no invoice took: credit on the account, used by the next invoice. */
      unallocated: p.amountCents - used,
    };
  }

  /** After a prepaid account's top-up commits. The test environment holds nothing: its prepaid accounts are never refused. */
  async function toppedUp(accountId: string): Promise<void> {
    if (!simulated) await deps.prepaidToppedUp(accountId);
  }

  /** Invoice views with their payment state as of now. */
  async function withPayments<V>(ex: Executor, rows: InvoiceRow[], view: (r: InvoiceRow) => V) {
    const settled = await paymentsRepo.settlements(
      ex,
      rows.map((r) => r.id),
    );
    const now = clock.now();
    return rows.map((r) => ({ ...view(r), payment: paymentOf(r, settled.get(r.id), now) }));
  }

  return {
    /**
     * Operator: money received (a prepaid top-up, an invoice paid), put against the account's open
     * invoices, the named invoice first (see `settleAccount`).
     */
    async recordPayment(accountRef: string, amountCents: number, note: string, invoiceRef?: string) {
      const done = await db.tx(async (tx) => {
        const acc = await account(tx, null, accountRef);
        await repo.lockAccount(tx, acc.id);
        const preferred = invoiceRef ? [(await invoiceOfAccount(tx, acc.id, invoiceRef)).id] : [];
        const payment = await receive(tx, acc, { amountCents, note, source: newReference('Payment'), preferred });
        const balance = (await accountsRepo.account(tx, null, acc.id))!.balance_cents;
        return { account: { reference: acc.id, balance }, payment, prepaid: acc.prepaid };
      });
      if (done.prepaid) await toppedUp(done.account.reference);
      return { account: done.account, payment: done.payment };
    },
    receive,
    toppedUp,
    withPayments,
  };
}
export type PaymentUseCases = ReturnType<typeof paymentUseCases>;

import type { Executor } from '../../platform/db/index.ts';
import { badRequest, mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import { bankImportUseCases } from './bank-import.ts';
import { bookerOf } from './book.ts';
import { monthOf, previousMonth } from './calendar.ts';
import { chargeUseCases } from './charges.ts';
import { issueCreditNoteOf } from './credit-notes.ts';
import type { BillingDeps } from './deps.ts';
import { documentUseCases } from './documents.ts';
import { issueInvoiceOf } from './issue-invoice.ts';
import { paymentUseCases } from './payments.ts';
import { priceCorrectionOf } from './price-corrections.ts';
import { type BillingAccountRow, accountsRepo, billingRepo as repo } from './repo.ts';
import { taxDetailsUseCases } from './tax-details.ts';
import { toInvoice } from './views.ts';

export { monthOf, previousMonth } from './calendar.ts';

export type BillingService = ReturnType<typeof billingService>;

/**
 * The money of an account: a ledger whose sum is the balance, booked in the callers' transactions
 * (orders at production start, claims at a refund decision), and the monthly invoices built from it.
 * The test environment books every entry as `simulated`: shown, never in the balance or on an invoice.
 */
export function billingService(deps: BillingDeps) {
  const { db, clock } = deps;

  async function account(ex: Executor, orgId: string | null, ref: string): Promise<BillingAccountRow> {
    return mustFind(isReference('Account', ref) ? await accountsRepo.account(ex, orgId, ref) : null, 'Account', ref);
  }

  const book = bookerOf(deps);

  const correctPrice = priceCorrectionOf(deps, book);
  const issueInvoice = (accountId: string, month: string) => issueInvoiceOf(deps, accountId, month);

  const payments = paymentUseCases(deps, book, account);
  return {
    ...taxDetailsUseCases(deps),
    ...bankImportUseCases(deps, payments.receive, payments.toppedUp),
    ...chargeUseCases(deps, book),
    ...payments,
    ...documentUseCases(deps, payments, account),
    issueInvoice,
    /**
     * Every account's invoice of a month (`YYYY-MM`, default: the month before now). Safe to run
     * again: an account has one invoice a month; a month still running is refused.
     */
    async issueMonthlyInvoices(month = previousMonth(clock.now())) {
      const period = monthOf(month);
      if (period.endAt.getTime() > clock.now().getTime())
        throw badRequest(`month ${month} has not ended; its invoices are issued from ${period.end}`);
      const issued: ReturnType<typeof toInvoice>[] = [];
      for (const accountId of await repo.accountsToBill(db, period.endAt)) {
        const row = await issueInvoice(accountId, month);
        if (row) issued.push(toInvoice(row));
      }
      return { month, invoices: issued };
    },
    /**
     * A correction of an issued invoice: a credit note of the given net amount (default: all not yet
     * credited), with its own gap-free number; the amount goes back to the account's ledger.
     */
    async issueCreditNote(invoiceRef: string, c: { reason: string; net?: number }) {
      return { invoice: toInvoice(await issueCreditNoteOf(deps, book, invoiceRef, c)) };
    },
    /** A line's unit price lowered after invoicing: a credit note of the difference, at the line's VAT. */
    async correctPrice(invoiceRef: string, c: { line: number; unitPrice: number; reason: string }) {
      return { invoice: toInvoice(await correctPrice(invoiceRef, c)) };
    },
  };
}

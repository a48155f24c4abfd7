import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { type Keyset, type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference } from '../../platform/ids.ts';
import { type Receive, bankBooking, undecided } from './bank-matching.ts';
import { statementImportOf } from './statement-import.ts';
import { toBankPayment } from './views.ts';
import type { BillingDeps } from './deps.ts';
import { accountsRepo, billingRepo } from './repo.ts';
import { type BankPaymentRow, type BankPaymentStatus, paymentsRepo as repo } from './repo-payments.ts';

/**
 * The bank payments a person decides: the list, and each unmatched one put on an invoice or an
 * account, or dismissed. The statement import (statement-import.ts) matches the rest.
 */
export function bankImportUseCases(
  deps: BillingDeps,
  receive: Receive,
  toppedUp: (accountId: string) => Promise<void>,
) {
  const { db, clock, cursors } = deps;
  const book = bankBooking(receive);

  return {
    importStatement: statementImportOf(deps, book, toppedUp),

    async bankPayments(status: BankPaymentStatus | null, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'payments',
        scope: `bank-payments:${status ?? 'all'}`,
        load: (ks: Keyset) => repo.bankPayments(db, status, ks),
        item: toBankPayment,
      });
    },

    /** A person puts an unmatched payment on an invoice (and its account) or on an account. */
    async assignBankPayment(ref: string, to: { invoiceReference?: string; accountReference?: string }, by: string) {
      if (!to.invoiceReference === !to.accountReference)
        throw badRequest('Name either invoiceReference or accountReference');
      let prepaid: string | null = null;
      const view = await db.tx(async (tx) => {
        const p = await undecidedPayment(tx, ref);
        if (p.currency !== 'EUR')
          throw badRequest(`${p.id} is in ${p.currency}; only EUR payments can be put on an account. Dismiss it`);
        let accountId: string;
        let invoiceIds: string[] = [];
        if (to.invoiceReference) {
          const inv = isReference('Invoice', to.invoiceReference)
            ? await billingRepo.invoice(tx, null, to.invoiceReference)
            : null;
          const found = mustFind(inv, 'Invoice', to.invoiceReference);
          if (found.kind !== 'invoice') throw badRequest(`${found.number} is a credit note; name the invoice`);
          accountId = found.account_id;
          invoiceIds = [found.id];
        } else {
          const acc = isReference('Account', to.accountReference)
            ? await accountsRepo.account(tx, null, to.accountReference!)
            : null;
          accountId = mustFind(acc, 'Account', to.accountReference).id;
        }
        const b = await book(tx, p, accountId, invoiceIds);
        if (b.acc.prepaid) prepaid = b.acc.id;
        await repo.decideBankPayment(tx, p.id, {
          status: 'assigned',
          matchRule: 'operator',
          detail: `assigned by ${by}: ${b.booked}`,
          accountId: b.acc.id,
          invoiceId: invoiceIds[0] ?? null,
          paymentEntryId: b.entry,
          by,
          at: clock.now(),
        });
        return toBankPayment((await repo.bankPayment(tx, p.id))!);
      });
      if (prepaid) await toppedUp(prepaid);
      return view;
    },

    /** Not a partner's payment (interest, a supplier's refund): kept, booked nowhere. */
    async dismissBankPayment(ref: string, note: string, by: string) {
      return db.tx(async (tx) => {
        const p = await undecidedPayment(tx, ref);
        await repo.decideBankPayment(tx, p.id, {
          ...undecided(`dismissed by ${by}: ${note}`),
          status: 'dismissed',
          by,
          at: clock.now(),
        });
        return toBankPayment((await repo.bankPayment(tx, p.id))!);
      });
    },
  };

  async function undecidedPayment(tx: Executor, ref: string): Promise<BankPaymentRow> {
    const p = mustFind(
      isReference('Bankpayment', ref) ? await repo.bankPayment(tx, ref, true) : null,
      'Bank payment',
      ref,
    );
    if (p.status !== 'unmatched') throw conflict('bank_payment_decided', `${p.id} is ${p.status} already: ${p.detail}`);
    return p;
  }
}

import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { type Keyset, type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { type CamtEntry, parseCamt053 } from './camt053.ts';
import type { BillingDeps } from './deps.ts';
import { type BillingAccountRow, accountsRepo, billingRepo } from './repo.ts';
import { type BankPaymentRow, type BankPaymentStatus, type MatchRule, paymentsRepo as repo } from './repo-payments.ts';

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

type Receive = (
  tx: Executor,
  acc: BillingAccountRow,
  p: { amountCents: number; note: string; source: string; preferred?: string[] },
) => Promise<{ reference: string; allocations: Array<{ number: string; amount: number }>; unallocated: number }>;

type Match =
  | { rule: Exclude<MatchRule, 'operator'>; accountId: string; invoiceIds: string[]; why: string }
  | { rule: null; why: string };

const INVOICE_NUMBER = /\bINV-?(\d{4})-?(\d{6})\b/gi;
const ACCOUNT_REFERENCE = /\bAccount_[0-9a-hjkmnp-tv-z]{26}\b/gi;
const eur = (cents: number) => `€${(cents / 100).toFixed(2)}`;

/** The rules, in order: invoice numbers in the remittance, then an account reference, then the amount. */
async function match(tx: Executor, e: CamtEntry): Promise<Match> {
  if (e.currency !== 'EUR') return { rule: null, why: `in ${e.currency}; invoices are in EUR` };
  const numbers = [...new Set([...e.remittance.matchAll(INVOICE_NUMBER)].map((m) => `INV-${m[1]}-${m[2]}`))];
  const found = [];
  for (const n of numbers) {
    const inv = await repo.invoiceByNumber(tx, n);
    if (inv?.kind === 'invoice') found.push({ ...inv, number: n });
  }
  const accounts = new Set(found.map((f) => f.account_id));
  if (accounts.size > 1) return { rule: null, why: `names invoices of different accounts: ${numbers.join(', ')}` };
  if (found.length > 0)
    return {
      rule: 'invoice_number',
      accountId: found[0].account_id,
      invoiceIds: found.map((f) => f.id),
      why: `names ${found.map((f) => f.number).join(', ')}`,
    };
  for (const ref of new Set([...e.remittance.matchAll(ACCOUNT_REFERENCE)].map((m) => m[0]))) {
    if (await accountsRepo.account(tx, null, ref))
      return { rule: 'account_reference', accountId: ref, invoiceIds: [], why: `names account ${ref}` };
  }
  const open = await repo.openInvoicesOfAmount(tx, e.amountCents);
  if (open.length === 1)
    return {
      rule: 'amount',
      accountId: open[0].account_id,
      invoiceIds: [open[0].id],
      why: `the only open invoice of ${eur(e.amountCents)}: ${open[0].number}`,
    };
  const named = numbers.length ? `names ${numbers.join(', ')}, which is no invoice here; ` : '';
  return {
    rule: null,
    why:
      open.length > 1
        ? `${named}${open.length} open invoices of ${eur(e.amountCents)}: ${open.map((o) => o.number).join(', ')}`
        : `${named}no invoice number, account reference or open invoice of ${eur(e.amountCents)}`,
  };
}

const noteOf = (p: { booking_date: string; debtor_name: string | null; remittance: string }) =>
  `Bank ${p.booking_date}${p.debtor_name ? ` ${p.debtor_name}` : ''}: ${p.remittance || 'no remittance information'}`.slice(
    0,
    500,
  );

/**
 * Bank statements (camt.053) imported in one transaction each: every incoming booked payment is
 * stored once per bank account and entry reference (a statement imported again adds nothing),
 * matched to invoices or an account and booked; the rest waits for a person, who assigns or
 * dismisses it. Prepaid accounts topped up release their held orders after the commit.
 */
export function bankImportUseCases(
  deps: BillingDeps,
  receive: Receive,
  toppedUp: (accountId: string) => Promise<void>,
) {
  const { db, clock, cursors } = deps;

  async function book(tx: Executor, p: BankPaymentRow, accountId: string, preferred: string[]) {
    const acc = (await accountsRepo.account(tx, null, accountId))!;
    await billingRepo.lockAccount(tx, acc.id);
    const paid = await receive(tx, acc, { amountCents: p.amount_cents, note: noteOf(p), source: p.id, preferred });
    const on = paid.allocations.map((a) => `${a.number} ${eur(a.amount)}`).join(', ');
    return {
      acc,
      entry: paid.reference,
      booked: acc.prepaid
        ? 'top-up'
        : `${on || 'no open invoice'}${paid.unallocated ? `; ${eur(paid.unallocated)} kept as credit` : ''}`,
    };
  }

  return {
    async importStatement(xml: string, by: string) {
      const doc = parseCamt053(xml);
      const topUps = new Set<string>();
      const result = await db.tx(async (tx) => {
        const now = clock.now();
        const counts = { imported: 0, repeated: 0, matched: 0, unmatched: 0, skipped: 0 };
        const payments: BankPaymentView[] = [];
        const statements = [];
        for (const s of doc.statements) {
          const st = await repo.statement(tx, {
            id: newReference('Bankstatement'),
            bankAccount: s.bankAccount,
            statementId: s.statementId,
            messageId: doc.messageId,
            at: now,
            by,
          });
          statements.push({
            reference: st.id,
            bankAccount: s.bankAccount,
            statementId: s.statementId,
            repeated: !st.fresh,
          });
          for (const e of s.entries) {
            // Money out, money not yet booked and reversals are no partner's payment.
            if (!e.credit || !e.booked || e.reversal || e.amountCents === 0) {
              counts.skipped++;
              continue;
            }
            const row: BankPaymentRow = {
              id: newReference('Bankpayment'),
              seq: 0,
              statement_id: st.id,
              bank_account: s.bankAccount,
              entry_reference: e.entryReference.slice(0, 200),
              booking_date: e.bookingDate,
              amount_cents: e.amountCents,
              currency: e.currency,
              debtor_name: e.debtorName?.slice(0, 200) ?? null,
              debtor_account: e.debtorAccount?.slice(0, 100) ?? null,
              remittance: e.remittance.slice(0, 2000),
              status: 'unmatched',
              match_rule: null,
              detail: '',
              account_id: null,
              invoice_id: null,
              payment_entry_id: null,
              decided_by: null,
              decided_at: null,
              created_at: now,
            };
            if (!(await repo.insertBankPayment(tx, row))) {
              counts.repeated++;
              continue;
            }
            counts.imported++;
            const m = await match(tx, e);
            if (m.rule === null) {
              counts.unmatched++;
              await repo.decideBankPayment(tx, row.id, { ...undecided(m.why), by: null, at: null });
            } else {
              counts.matched++;
              const b = await book(tx, row, m.accountId, m.invoiceIds);
              if (b.acc.prepaid) topUps.add(b.acc.id);
              await repo.decideBankPayment(tx, row.id, {
                status: 'matched',
                matchRule: m.rule,
                detail: `${m.why}: ${b.booked}`,
                accountId: b.acc.id,
                invoiceId: m.invoiceIds[0] ?? null,
                paymentEntryId: b.entry,
                by: 'import',
                at: now,
              });
            }
            payments.push(toBankPayment((await repo.bankPayment(tx, row.id))!));
          }
        }
        return { version: doc.version, messageId: doc.messageId, statements, ...counts, payments };
      });
      for (const id of topUps) await toppedUp(id);
      return result;
    },

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

const undecided = (why: string) => ({
  status: 'unmatched' as BankPaymentStatus,
  matchRule: null,
  detail: why,
  accountId: null,
  invoiceId: null,
  paymentEntryId: null,
});

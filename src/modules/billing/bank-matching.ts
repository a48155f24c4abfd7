import type { Executor } from '../../platform/db/index.ts';
import type { CamtEntry } from './camt053.ts';
import { type BillingAccountRow, accountsRepo, billingRepo } from './repo.ts';
import { type BankPaymentRow, type BankPaymentStatus, type MatchRule, paymentsRepo as repo } from './repo-payments.ts';

export type Receive = (
  tx: Executor,
  acc: BillingAccountRow,
  p: { amountCents: number; note: string; source: string; preferred?: string[] },
) => Promise<{ reference: string; allocations: Array<{ number: string; amount: number }>; unallocated: number }>;

type Match =
  | { rule: Exclude<MatchRule, 'operator'>; accountId: string; invoiceIds: string[]; why: string }
  | { rule: null; why: string };

const INVOICE_NUMBER = /\bINV-?(\d{4})-?(\d{6})\b/gi;
const ACCOUNT_REFERENCE = /\bAccount_[0-9a-hjkmnp-tv-z]{26}\b/gi;
export const eur = (cents: number) => `€${(cents / 100).toFixed(2)}`;

/** The rules, in order: invoice numbers in the remittance, then an account reference, then the amount. */
export async function match(tx: Executor, e: CamtEntry): Promise<Match> {
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

/** Books a bank payment on an account (against the preferred invoices first); says what it paid. */
export function bankBooking(receive: Receive) {
  return async function book(tx: Executor, p: BankPaymentRow, accountId: string, preferred: string[]) {
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
  };
}

export const undecided = (why: string) => ({
  status: 'unmatched' as BankPaymentStatus,
  matchRule: null,
  detail: why,
  accountId: null,
  invoiceId: null,
  paymentEntryId: null,
});

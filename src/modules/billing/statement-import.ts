import { newReference } from '../../platform/ids.ts';
import { type bankBooking, match, undecided } from './bank-matching.ts';
import { type BankPaymentView, toBankPayment } from './views.ts';
import type { BillingDeps } from './deps.ts';
import { type BankPaymentRow, paymentsRepo as repo } from './repo-payments.ts';

/**
 * A bank statement (camt.053) imported in one transaction: every incoming booked payment is
 * stored once per bank account and entry reference (a statement imported again adds nothing),
 * matched to invoices or an account and booked; the rest waits for a person. Prepaid accounts
 * topped up release their held orders after the commit.
 */
export function statementImportOf(
  deps: BillingDeps,
  book: ReturnType<typeof bankBooking>,
  toppedUp: (accountId: string) => Promise<void>,
) {
  const { db, clock } = deps;
  return async function importStatement(xml: string, by: string) {
    // The XML parser (~40 modules) loads with the first statement a process imports.
    const { parseCamt053 } = await import('./camt053.ts');
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
  };
}

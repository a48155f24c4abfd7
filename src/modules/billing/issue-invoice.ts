import type { Executor } from '../../platform/db/index.ts';
import { newReference } from '../../platform/ids.ts';
import { amsterdamYear, monthOf } from './calendar.ts';
import type { BillingDeps } from './deps.ts';
import { type ChargeDetail, type VatGroup, invoiceLines, vatGroups } from './invoice-lines.ts';
import { settleAccount } from './payments.ts';
import { type InvoiceRow, type LedgerRow, accountsRepo, billingRepo as repo } from './repo.ts';
import { invoiceTreatment } from './vat.ts';

const DAY = 86_400_000;

/** The next number of a series (`INV`, `CN`) in the Amsterdam year of `at`: gap-free, in the caller's transaction. */
export async function nextDocumentNumber(tx: Executor, series: 'INV' | 'CN', at: Date): Promise<string> {
  const year = amsterdamYear(at);
  return `${series}-${year}-${String(await repo.nextNumber(tx, `${series}-${year}`)).padStart(6, '0')}`;
}

export const sumOf = (groups: VatGroup[]) => ({
  net: groups.reduce((s, g) => s + g.netCents, 0),
  vat: groups.reduce((s, g) => s + g.vatCents, 0),
});

/**
 * Issues the invoice of one account and Amsterdam month in one transaction; null when there is
 * nothing to bill. Each charge becomes its order's lines (items, shipping), each with the VAT of
 * its place of supply; the totals are summed by VAT rate.
 */
export async function issueInvoiceOf(deps: BillingDeps, accountId: string, month: string): Promise<InvoiceRow | null> {
  const period = monthOf(month);
  return deps.db.tx(async (tx) => {
    await repo.lockAccount(tx, accountId);
    if (await repo.invoiceOfMonth(tx, accountId, period.start)) return null;
    const acc = (await accountsRepo.account(tx, null, accountId))!;
    const entries = await repo.billable(tx, accountId, period.endAt);
    if (entries.length === 0) return null;
    const refundOrders = entries.filter((e) => e.kind !== 'charge' && e.order_id).map((e) => e.order_id!);
    const chargeOf: Map<string, ChargeDetail> = await repo.chargeDetails(tx, accountId, refundOrders);
    // Only a VAT number checked valid (by the register or an operator) counts for VAT.
    const { lines, decisions } = invoiceLines(
      entries.map((e: LedgerRow) => ({
        kind: e.kind,
        amountCents: e.amount_cents,
        description: e.description,
        orderId: e.order_id,
        claimId: e.claim_id,
        createdAt: e.created_at,
        detail: e.detail,
      })),
      {
        billingCountry: acc.billing_address.countryCode ?? '',
        billingPostcode: acc.billing_address.zipcode ?? '',
        validVatNumber: acc.vat_status === 'valid' ? acc.vat_number : null,
      },
      chargeOf,
    );
    const groups = vatGroups(lines, decisions);
    const { net, vat } = sumOf(groups);
    // Credits that cover the charges make no invoice: the entries stay open and are carried to the
    // first month whose charges exceed them, where each appears once.
    if (net <= 0) return null;
    const issuedAt = deps.clock.now();
    const row: InvoiceRow = {
      id: newReference('Invoice'),
      seq: 0,
      organization_id: acc.organization_id,
      account_id: acc.id,
      kind: 'invoice',
      number: await nextDocumentNumber(tx, 'INV', issuedAt),
      corrects_invoice_id: null,
      period_start: period.start,
      period_end: period.end,
      issued_at: issuedAt,
      // Prepaid accounts paid from their balance already: nothing is due later.
      due_at: new Date(issuedAt.getTime() + (acc.prepaid ? 0 : acc.payment_term_days) * DAY),
      buyer: {
        accountName: acc.name,
        legalEntity: acc.legal_entity_name,
        vatNumber: acc.vat_number,
        billingAddress: acc.billing_address,
      },
      vat_treatment: invoiceTreatment([...decisions.values()]),
      vat_rate_percent: Math.max(...groups.map((g) => g.ratePercent)),
      seller: deps.config.seller,
      vat_breakdown: groups,
      lines,
      net_cents: net,
      vat_cents: vat,
      total_cents: net + vat,
      reason: null,
    };
    await repo.insertInvoice(tx, row);
    await repo.markInvoiced(
      tx,
      entries.map((e) => e.id),
      row.id,
    );
    // Credit paid in earlier (or a prepaid balance) pays the new invoice at once.
    await settleAccount(tx, acc.id, issuedAt);
    return row;
  });
}

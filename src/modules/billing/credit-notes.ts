import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { amsterdamDay } from './calendar.ts';
import type { BillingDeps } from './deps.ts';
import type { BookFn } from './book.ts';
import type { InvoiceLine, VatGroup } from './invoice-lines.ts';
import { nextDocumentNumber, sumOf } from './issue-invoice.ts';
import { type InvoiceRow, billingRepo as repo } from './repo.ts';
import { vatOf } from './vat-rules.ts';

/** The VAT groups of an invoice; a document issued before they were kept has one, from its rate. */
export function groupsOf(inv: InvoiceRow): VatGroup[] {
  if (inv.vat_breakdown.length > 0) return inv.vat_breakdown;
  const ic = inv.vat_treatment === 'reverse_charge';
  return [
    {
      treatment: ic ? 'intra_community_supply' : 'domestic',
      category: ic ? 'K' : 'S',
      ratePercent: inv.vat_rate_percent,
      label: ic ? 'intra-Community supply' : 'Dutch VAT',
      exemptionCode: ic ? 'VATEX-EU-IC' : null,
      wording: null,
      legalReference: '',
      netCents: inv.net_cents,
      vatCents: inv.vat_cents,
    },
  ];
}

/**
 * The credit of a correction, per VAT group of the invoice: everything left (`net` undefined), or
 * `net` cents of an invoice with a single VAT group. A mixed invoice is credited in full, group by
 * group, or by the operator naming the lines in separate credit notes against a single group.
 */
function creditGroups(inv: InvoiceRow, creditableCents: number, net: number | undefined): VatGroup[] {
  const groups = groupsOf(inv).filter((g) => g.netCents > 0);
  if (net !== undefined) {
    if (groups.length !== 1)
      throw badRequest(
        `Invoice ${inv.number} has ${groups.length} VAT rates; a partial credit note needs one rate: credit it in full, or correct each rate's part separately`,
      );
    const g = groups[0];
    return [{ ...g, netCents: net, vatCents: vatOf(net, g.ratePercent) }];
  }
  // All that is left: scale each group by what is left of the invoice's total.
  const share = creditableCents / inv.total_cents;
  return groups.map((g) => {
    let n = Math.round(g.netCents * share);
    if (share < 1 && n + vatOf(n, g.ratePercent) > Math.round((g.netCents + g.vatCents) * share)) n -= 1;
    return { ...g, netCents: n, vatCents: vatOf(n, g.ratePercent) };
  });
}

/** What a correction credits: VAT groups (positive) and the lines that show them. */
export type CreditPlan = (
  inv: InvoiceRow,
  creditableCents: number,
  tx: Executor,
) => Promise<{ groups: VatGroup[]; lines: InvoiceLine[] }>;

/**
 * A correction of an issued invoice: a credit note with its own gap-free number (`CN-…`), naming
 * the invoice it corrects, with the VAT groups the plan gives; never more than is left to credit.
 * The amount goes back to the ledger as an adjustment that is on the credit note already, so no
 * monthly invoice bills it again.
 */
export async function creditInvoiceOf(
  deps: BillingDeps,
  book: BookFn,
  invoiceRef: string,
  reason: string,
  plan: CreditPlan,
): Promise<InvoiceRow> {
  return deps.db.tx(async (tx) => {
    const inv = mustFind(
      isReference('Invoice', invoiceRef) ? await repo.invoice(tx, null, invoiceRef) : null,
      'Invoice',
      invoiceRef,
    );
    if (inv.kind !== 'invoice') throw badRequest(`${inv.number} is a credit note; correct the invoice it corrects`);
    await repo.lockAccount(tx, inv.account_id);
    const creditable = inv.total_cents + (await repo.creditedOf(tx, inv.id));
    const { groups, lines } = await plan(inv, creditable, tx);
    const { net, vat } = sumOf(groups);
    if (net <= 0 || net + vat > creditable)
      throw conflict(
        'invoice_overcredited',
        `Invoice ${inv.number} has ${creditable} cents (incl. VAT) left to credit; a credit note of ${net} net cents does not fit`,
      );
    const row = await insertCreditNote(deps, tx, inv, { id: newReference('Invoice'), groups, reason, lines });
    await book(tx, {
      organizationId: inv.organization_id,
      accountId: inv.account_id,
      kind: 'adjustment',
      // The ledger is net of VAT, like the charges it corrects.
      amountCents: net,
      source: row.id,
      description: `Credit note ${row.number} for invoice ${inv.number}`,
      invoiceId: row.id,
    });
    return row;
  });
}

/** A correction by amount: everything left (`net` undefined), or `net` cents of a single-rate invoice. */
export function issueCreditNoteOf(
  deps: BillingDeps,
  book: BookFn,
  invoiceRef: string,
  c: { reason: string; net?: number },
): Promise<InvoiceRow> {
  return creditInvoiceOf(deps, book, invoiceRef, c.reason, async (inv, creditable) => {
    const groups = creditGroups(inv, creditable, c.net);
    const day = amsterdamDay(deps.clock.now());
    const lines: InvoiceLine[] = groups.map((g) => ({
      kind: 'adjustment',
      description: `Correction of invoice ${inv.number}: ${c.reason}`,
      orderReference: null,
      claimReference: null,
      date: day,
      quantity: 1,
      unitPriceCents: -g.netCents,
      netCents: -g.netCents,
      vat: { treatment: g.treatment, category: g.category, ratePercent: g.ratePercent },
    }));
    return { groups, lines };
  });
}

/**
 * Stores a credit note of `inv` with its own gap-free number (`CN-…`): the lines and VAT groups
 * given as positive credits, kept negative like their effect on what the account owes.
 */
export async function insertCreditNote(
  deps: BillingDeps,
  tx: Executor,
  inv: InvoiceRow,
  c: { id: string; lines: InvoiceLine[]; groups: VatGroup[]; reason: string },
): Promise<InvoiceRow> {
  const { net, vat } = sumOf(c.groups);
  const issuedAt = deps.clock.now();
  const row: InvoiceRow = {
    ...inv,
    id: c.id,
    kind: 'credit_note',
    number: await nextDocumentNumber(tx, 'CN', issuedAt),
    corrects_invoice_id: inv.id,
    issued_at: issuedAt,
    due_at: issuedAt,
    seller: inv.seller ?? deps.config.seller,
    vat_breakdown: c.groups.map((g) => ({ ...g, netCents: -g.netCents, vatCents: -g.vatCents })),
    lines: c.lines,
    net_cents: -net,
    vat_cents: -vat,
    total_cents: -(net + vat),
    reason: c.reason,
  };
  await repo.insertInvoice(tx, row);
  return row;
}

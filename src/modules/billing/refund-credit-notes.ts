import type { Executor } from '../../platform/db/index.ts';
import { newReference } from '../../platform/ids.ts';
import type { BookFn } from './book.ts';
import { amsterdamDay } from './calendar.ts';
import { groupsOf, insertCreditNote } from './credit-notes.ts';
import type { BillingDeps } from './deps.ts';
import type { InvoiceLine, VatGroup } from './invoice-lines.ts';
import { type InvoiceRow, billingRepo as repo } from './repo.ts';
import { vatOf } from './vat-rules.ts';

/** A refund to book: of an order, once per source, for a claim or an operator's cancelation. */
export interface RefundIn {
  organizationId: string;
  storeId: string;
  /** The claim decided, if a claim caused the refund. */
  claimId?: string;
  orderId: string;
  /** What is refunded: booked once per source. */
  source: string;
  amountCents: number;
  description: string;
}

/**
 * Refunds that belong together (one claim's decision, one cancelation), in the caller's
 * transaction. Each is booked once per source. Those of orders whose charge is on an issued
 * invoice become one credit note per invoice they correct, with a line per refund at the VAT its
 * order had there; their ledger entries are booked on that credit note, so no monthly invoice
 * bills them again. The others wait for the invoice that bills their order, as lines of its block.
 * Returns how many were booked (0: all had been booked before).
 */
export async function creditRefundsOf(
  deps: BillingDeps,
  book: BookFn,
  tx: Executor,
  refunds: RefundIn[],
  reason: string,
): Promise<number> {
  const simulated = deps.config.env === 'test';
  const notes = new Map<string, { id: string; refunds: RefundIn[] }>();
  let booked = 0;
  for (const r of refunds) {
    if (r.amountCents <= 0) continue;
    const store = (await deps.organization.storeIn(tx, r.organizationId, r.storeId))!;
    const invoiced = simulated ? null : await repo.chargeInvoiceOf(tx, r.orderId);
    const note = invoiced ? (notes.get(invoiced) ?? { id: newReference('Invoice'), refunds: [] }) : null;
    const result = await book(tx, {
      organizationId: r.organizationId,
      accountId: store.accountId,
      kind: 'refund',
      amountCents: r.amountCents,
      source: r.source,
      orderId: r.orderId,
      claimId: r.claimId,
      description: r.description,
      invoiceId: note?.id,
    });
    if (result !== 'booked') continue;
    booked++;
    if (invoiced && note) {
      note.refunds.push(r);
      notes.set(invoiced, note);
    }
  }
  for (const [invoiceId, note] of notes)
    await insertRefundCreditNote(deps, tx, note.id, invoiceId, note.refunds, reason);
  return booked;
}

/** One credit note of `invoiceId` for the refunds, each line at the VAT of its order's lines there. */
async function insertRefundCreditNote(
  deps: BillingDeps,
  tx: Executor,
  id: string,
  invoiceId: string,
  refunds: RefundIn[],
  reason: string,
): Promise<InvoiceRow> {
  const inv = (await repo.invoice(tx, null, invoiceId))!;
  const issuedAt = deps.clock.now();
  const groups = new Map<string, VatGroup>();
  const lines: InvoiceLine[] = refunds.map((r) => {
    const orderLine = inv.lines.find((l) => l.orderReference === r.orderId && l.vat);
    const g =
      groupsOf(inv).find(
        (x) => orderLine?.vat && x.category === orderLine.vat.category && x.ratePercent === orderLine.vat.ratePercent,
      ) ?? groupsOf(inv)[0];
    const key = `${g.category}:${g.ratePercent}`;
    const sum = groups.get(key) ?? { ...g, netCents: 0, vatCents: 0 };
    sum.netCents += r.amountCents;
    groups.set(key, sum);
    return {
      kind: 'refund',
      description: r.description,
      orderReference: r.orderId,
      claimReference: r.claimId ?? null,
      date: amsterdamDay(issuedAt),
      quantity: 1,
      unitPriceCents: -r.amountCents,
      netCents: -r.amountCents,
      vat: { treatment: g.treatment, category: g.category, ratePercent: g.ratePercent },
      order: orderLine?.order,
    };
  });
  const breakdown = [...groups.values()].map((g) => ({ ...g, vatCents: vatOf(g.netCents, g.ratePercent) }));
  return insertCreditNote(deps, tx, inv, { id, lines, groups: breakdown, reason });
}

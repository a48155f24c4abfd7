import { badRequest } from '../../platform/errors.ts';
import type { BookFn } from './book.ts';
import { amsterdamDay } from './calendar.ts';
import { creditInvoiceOf, groupsOf } from './credit-notes.ts';
import type { BillingDeps } from './deps.ts';
import type { InvoiceLine } from './invoice-lines.ts';
import { type InvoiceRow, billingRepo as repo } from './repo.ts';
import { vatOf } from './vat-rules.ts';

const euros = (cents: number) => `EUR ${(cents / 100).toFixed(2)}`;

/**
 * An operator lowers the unit price of one line (a product or a shipping charge) of an issued
 * invoice: a credit note of that invoice for the difference times the line's quantity, at the line's
 * VAT. A line corrected before is corrected from its corrected price. A higher price is not a credit:
 * it is charged on a later invoice.
 */
export function priceCorrectionOf(deps: BillingDeps, book: BookFn) {
  return async function correctPrice(
    invoiceRef: string,
    c: { line: number; unitPrice: number; reason: string },
  ): Promise<InvoiceRow> {
    return creditInvoiceOf(deps, book, invoiceRef, c.reason, async (inv, _left, tx) => {
      const line = inv.lines[c.line - 1];
      if (!line || (line.kind !== 'item' && line.kind !== 'shipping') || !line.vat)
        throw badRequest(
          `body.line: invoice ${inv.number} has no product or shipping line ${c.line} (lines are numbered from 1 as the invoice lists them)`,
        );
      const earlier = (await repo.creditNotesOf(tx, inv.id))
        .flatMap((n) => n.lines)
        .filter((l) => l.corrects?.line === c.line);
      const current = earlier.at(-1)?.corrects?.unitPriceCents ?? line.unitPriceCents ?? line.netCents;
      if (c.unitPrice >= current)
        throw badRequest(
          `body.unitPrice: a price correction lowers the price (line ${c.line} is at ${current} cents); a higher price is charged on a later invoice`,
        );
      const quantity = line.quantity ?? 1;
      const credit = (current - c.unitPrice) * quantity;
      const g = groupsOf(inv).find(
        (x) => x.category === line.vat!.category && x.ratePercent === line.vat!.ratePercent,
      )!;
      const corrected: InvoiceLine = {
        kind: 'adjustment',
        description: `Line ${c.line} of ${inv.number} (${line.description}): ${euros(current)} to ${euros(c.unitPrice)} each`,
        orderReference: line.orderReference,
        claimReference: null,
        date: amsterdamDay(deps.clock.now()),
        sku: line.sku ?? null,
        quantity,
        unitPriceCents: -(current - c.unitPrice),
        netCents: -credit,
        vat: line.vat,
        order: line.order,
        corrects: { line: c.line, unitPriceCents: c.unitPrice },
      };
      return { groups: [{ ...g, netCents: credit, vatCents: vatOf(credit, g.ratePercent) }], lines: [corrected] };
    });
  };
}

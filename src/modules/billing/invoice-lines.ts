import { amsterdamDay } from './calendar.ts';
import { type VatDecision, type VatTreatment, decideVat, vatOf } from './vat-rules.ts';

/**
 * What an order's charge was for, kept on its ledger entry when production starts: the invoice
 * lines are built from it, never from the order as it is later.
 */
export interface ChargeDetail {
  order: {
    reference: string;
    customIdentifier: string | null;
    store: { reference: string; code: string; name: string };
    /** Where the goods go: the dropship address, or the store's combined address. */
    shipTo: { country: string; postcode: string } | null;
    shippingLevel: string | null;
  };
  items: Array<{
    productReference: string;
    name: string;
    sku: string | null;
    quantity: number;
    unitPriceCents: number;
  }>;
  /** The order's shipping; for a combined shipment, this order's share of its one charge. */
  shippingCents: number;
  /** A combined shipment's charge: the shipment, its whole price and how many orders share it. */
  shipment?: { reference: string; totalCents: number; orders: number };
}

export interface LineVat {
  treatment: VatTreatment;
  category: 'S' | 'K' | 'G';
  ratePercent: number;
}

export interface InvoiceLine {
  description: string;
  orderReference: string | null;
  claimReference: string | null;
  /** The day of the supply (Amsterdam). */
  date: string;
  netCents: number;
  /** Itemised lines: a product, a shipping charge, a refund or another booking. */
  kind?: 'item' | 'shipping' | 'refund' | 'adjustment';
  sku?: string | null;
  quantity?: number;
  unitPriceCents?: number;
  vat?: LineVat;
  /** The order's block: the partner's identifier, the store and the destination. */
  order?: { customIdentifier: string | null; store: string; shipTo: string | null };
  shipmentReference?: string | null;
  /** A price correction: the invoice line (1-based) it corrects and the unit price it sets. */
  corrects?: { line: number; unitPriceCents: number };
}

/** The totals of one VAT rate and category: what the invoice's tax summary shows. */
export interface VatGroup {
  treatment: VatTreatment;
  category: 'S' | 'K' | 'G';
  ratePercent: number;
  label: string;
  exemptionCode: string | null;
  wording: string | null;
  legalReference: string;
  netCents: number;
  vatCents: number;
}

/** A billable ledger entry as the builder needs it. */
export interface BillableEntry {
  kind: string;
  amountCents: number;
  description: string;
  orderId: string | null;
  claimId: string | null;
  createdAt: Date;
  detail: ChargeDetail | null;
}

export interface Buyer {
  billingCountry: string;
  billingPostcode: string;
  /** The VAT number only when it was checked valid; else null. */
  validVatNumber: string | null;
}

const lineVat = (d: VatDecision): LineVat => ({
  treatment: d.treatment,
  category: d.category,
  ratePercent: d.ratePercent,
});

/**
 * The lines of an invoice from its ledger entries: one per order line, one for each order's
 * shipping, one per refund or other booking, each with its VAT decided by place of supply.
 * `chargeOf`: the charge detail of orders that refunds refer to (the goods' destination).
 */
export function invoiceLines(
  entries: BillableEntry[],
  buyer: Buyer,
  chargeOf: ReadonlyMap<string, ChargeDetail>,
): { lines: InvoiceLine[]; decisions: Map<InvoiceLine, VatDecision> } {
  const lines: InvoiceLine[] = [];
  const decisions = new Map<InvoiceLine, VatDecision>();
  for (const e of entries) {
    const date = amsterdamDay(e.createdAt);
    const detail = e.detail ?? (e.orderId ? (chargeOf.get(e.orderId) ?? null) : null);
    const shipTo = detail?.order.shipTo ?? { country: buyer.billingCountry, postcode: buyer.billingPostcode };
    const decide = (kind: 'goods' | 'shipping') =>
      decideVat({
        date,
        kind,
        shipTo,
        buyerVatNumber: buyer.validVatNumber,
        buyerVatNumberValid: buyer.validVatNumber !== null,
      });
    const push = (l: InvoiceLine, d: VatDecision) => {
      l.vat = lineVat(d);
      lines.push(l);
      decisions.set(l, d);
    };
    const block = detail
      ? {
          customIdentifier: detail.order.customIdentifier,
          store: `${detail.order.store.name} (${detail.order.store.code})`,
          shipTo: detail.order.shipTo?.country ?? null,
        }
      : undefined;
    if (e.kind === 'charge' && e.detail) {
      for (const it of e.detail.items) {
        push(
          {
            kind: 'item',
            description: it.name,
            sku: it.sku,
            quantity: it.quantity,
            unitPriceCents: it.unitPriceCents,
            netCents: it.quantity * it.unitPriceCents,
            orderReference: e.orderId,
            claimReference: null,
            date,
            order: block,
          },
          decide('goods'),
        );
      }
      if (e.detail.shippingCents !== 0) push(shippingLine(e, date, block), decide('shipping'));
      continue;
    }
    push(
      {
        kind: e.kind === 'refund' ? 'refund' : e.kind === 'charge' && e.detail === null ? 'item' : 'adjustment',
        description: e.description,
        quantity: 1,
        unitPriceCents: -e.amountCents,
        netCents: -e.amountCents,
        orderReference: e.orderId,
        claimReference: e.claimId,
        date,
        order: block,
      },
      decide('goods'),
    );
  }
  return { lines: byOrder(lines), decisions };
}

/**
 * Each order's lines together, in the order the orders first appear: a combined order's shipping
 * share, booked when its shipment leaves, joins the order's block instead of starting a new one.
 */
function byOrder(lines: InvoiceLine[]): InvoiceLine[] {
  const first = new Map<string, number>();
  lines.forEach((l, i) => {
    if (l.orderReference && !first.has(l.orderReference)) first.set(l.orderReference, i);
  });
  const key = (l: InvoiceLine, i: number) => (l.orderReference ? first.get(l.orderReference)! : i);
  return lines
    .map((l, i) => ({ l, k: key(l, i), i }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.l);
}

function shippingLine(e: BillableEntry, date: string, block: InvoiceLine['order']): InvoiceLine {
  const d = e.detail!;
  const level = d.order.shippingLevel ? ` (${d.order.shippingLevel})` : '';
  const description = d.shipment
    ? `Shipping${level}, this order's share of combined shipment ${d.shipment.reference} (${d.shipment.orders} orders, EUR ${(d.shipment.totalCents / 100).toFixed(2)} in all)`
    : `Shipping${level}`;
  return {
    kind: 'shipping',
    description,
    quantity: 1,
    unitPriceCents: d.shippingCents,
    netCents: d.shippingCents,
    orderReference: e.orderId,
    claimReference: null,
    date,
    order: block,
    shipmentReference: d.shipment?.reference ?? null,
  };
}

/** Totals by VAT category and rate; each group's VAT rounded once, on its total (EN 16931 BR-CO-17). */
export function vatGroups(lines: InvoiceLine[], decisions: ReadonlyMap<InvoiceLine, VatDecision>): VatGroup[] {
  const groups = new Map<string, VatGroup>();
  for (const l of lines) {
    const d = decisions.get(l)!;
    const key = `${d.category}:${d.ratePercent}`;
    const g = groups.get(key) ?? {
      treatment: d.treatment,
      category: d.category,
      ratePercent: d.ratePercent,
      label: d.label,
      exemptionCode: d.exemptionCode,
      wording: d.wording,
      legalReference: d.legalReference,
      netCents: 0,
      vatCents: 0,
    };
    g.netCents += l.netCents;
    groups.set(key, g);
  }
  for (const g of groups.values()) g.vatCents = vatOf(g.netCents, g.ratePercent);
  return [...groups.values()].sort((a, b) => b.ratePercent - a.ratePercent || a.category.localeCompare(b.category));
}

import type { Executor } from '../../platform/db/index.ts';
import type { BillingDeps } from './deps.ts';
import type { ChargeDetail } from './invoice-lines.ts';
import type { BookFn } from './book.ts';

/** An order that leaves in a combined shipment, as the split and the charge need it. */
export interface CombinedShare {
  id: string;
  /** Items it carries (ordered minus canceled): the key of the split. */
  items: number;
  customIdentifier: string | null;
  /** A replacement order rides free: it takes no share. */
  replacement: boolean;
}

/**
 * Splits one shipment's charge over its orders in proportion to the items each carries (the price
 * is a base plus a price per item, so an order pays for what it adds). Cents are whole: each order
 * gets the rounded-down part, and the cents left go one each to the largest remainders, the order
 * listed first winning a tie. The shares always add up to the total. Orders without items, and
 * replacements, pay nothing; when no order has items, nobody pays (nothing travels at a price).
 * Decision 0440.
 */
export function splitShipping(totalCents: number, orders: ReadonlyArray<CombinedShare>): Map<string, number> {
  const shares = new Map(orders.map((o) => [o.id, 0]));
  const payers = orders.filter((o) => !o.replacement && o.items > 0);
  const items = payers.reduce((s, o) => s + o.items, 0);
  if (totalCents <= 0 || items === 0) return shares;
  const parts = payers.map((o, i) => {
    const exact = (totalCents * o.items) / items;
    return { id: o.id, i, cents: Math.floor(exact), rest: exact - Math.floor(exact) };
  });
  let left = totalCents - parts.reduce((s, p) => s + p.cents, 0);
  for (const p of [...parts].sort((a, b) => b.rest - a.rest || a.i - b.i)) {
    if (left === 0) break;
    p.cents += 1;
    left -= 1;
  }
  for (const p of parts) shares.set(p.id, p.cents);
  return shares;
}

/**
 * A combined shipment's one shipping charge, in the transaction that creates the shipment: split
 * over its orders (`splitShipping`) and booked as one charge per order, on the order, naming the
 * shipment, the whole price and the order's share. Booked once per shipment and order, whatever
 * runs twice. The goods are made by then, so a prepaid balance does not hold the shipment back:
 * it may go below zero by the shares until the next top-up. Returns each order's share.
 */
export function combinedShippingOf(deps: BillingDeps, book: BookFn) {
  return async function chargeCombinedShipment(
    tx: Executor,
    s: {
      shipmentId: string;
      organizationId: string;
      storeId: string;
      level: string;
      totalCents: number;
      shipTo: { country: string; postcode: string } | null;
      orders: CombinedShare[];
    },
  ): Promise<Map<string, number>> {
    const shares = splitShipping(s.totalCents, s.orders);
    const store = (await deps.organization.storeIn(tx, s.organizationId, s.storeId))!;
    const sharing = s.orders.filter((o) => (shares.get(o.id) ?? 0) > 0).length;
    for (const o of s.orders) {
      const cents = shares.get(o.id) ?? 0;
      if (cents === 0) continue;
      const detail: ChargeDetail = {
        order: {
          reference: o.id,
          customIdentifier: o.customIdentifier,
          store: { reference: store.id, code: store.code, name: store.name },
          shipTo: s.shipTo,
          shippingLevel: s.level,
        },
        items: [],
        shippingCents: cents,
        shipment: { reference: s.shipmentId, totalCents: s.totalCents, orders: sharing },
      };
      await book(tx, {
        organizationId: s.organizationId,
        accountId: store.accountId,
        kind: 'charge',
        amountCents: -cents,
        source: `${s.shipmentId}:${o.id}`,
        orderId: o.id,
        description: `Shipping, share of combined shipment ${s.shipmentId}`,
        detail,
      });
    }
    return shares;
  };
}

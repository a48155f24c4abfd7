import type { Executor } from '../../platform/db/index.ts';
import type { StoreFacts } from '../organization/service.ts';
import { isPackstation } from '../shipping/address.ts';
import type { Address } from '../shipping/address.ts';
import { type ShippingLevel, availableLevels, parcelOf, priceAt } from '../shipping/data.ts';
import type { OrdersDeps } from './deps.ts';
import { type OrderlineRow, type OrderRow, ordersRepo as repo } from './repo.ts';

/** The shipment the orders leave with. */
export interface Shipped {
  id: string;
  level: ShippingLevel;
}

/**
 * A combined shipment's one shipping charge (a dropship order's shipping was charged with it), in the transaction that creates it: the price of the
 * one parcel that carries every order's goods to the store's combined address at the shipment's
 * level (when that level cannot carry it, the cheapest that can). Billing splits it over the
 * orders and books each share; each order then shows its share as its shipping price.
 */
export async function chargeCombinedShipment(
  deps: Pick<OrdersDeps, 'billing'>,
  tx: Executor,
  s: { shipment: Shipped; store: StoreFacts; orders: OrderRow[]; lines: OrderlineRow[] },
): Promise<void> {
  if (s.orders[0]?.shipping_kind !== 'combined') return;
  const address = s.store.combinedAddress as Address | null;
  const country = address?.countryCode;
  if (!address || !country) return;
  const parcel = parcelOf(s.lines, country, isPackstation(address));
  const total = priceAt(parcel, s.shipment.level) ?? availableLevels(parcel)[0]?.price ?? 0;
  const first = s.orders[0];
  const shares = await deps.billing.chargeCombinedShipment(tx, {
    shipmentId: s.shipment.id,
    organizationId: first.organization_id,
    storeId: first.store_id,
    level: s.shipment.level,
    totalCents: parcel.items === 0 ? 0 : total,
    shipTo: { country, postcode: address.zipcode ?? '' },
    // Oldest first: the split gives a cent left over to the order listed first on a tie.
    orders: [...s.orders]
      .sort((a, b) => a.seq - b.seq)
      .map((o) => ({
        id: o.id,
        items: s.lines.filter((l) => l.order_id === o.id).reduce((n, l) => n + l.quantity - l.canceled_quantity, 0),
        customIdentifier: o.custom_identifier,
        replacement: o.replaces_order_id !== null,
      })),
  });
  for (const o of s.orders) await repo.setShipping(tx, o.id, s.shipment.level, shares.get(o.id) ?? 0);
}

import type { Executor } from '../../platform/db/index.ts';
import type { Address } from '../shipping/address.ts';
import { type Parcel, priceAt } from '../shipping/data.ts';
import { type OrderlineRow, type OrderRow, ordersRepo as repo } from './repo.ts';

const open = (l: OrderlineRow) => l.quantity - l.canceled_quantity - l.shipped_quantity;
const kept = (l: OrderlineRow) => l.quantity - l.canceled_quantity;

export const productsCents = (lines: OrderlineRow[]) => lines.reduce((sum, l) => sum + l.unit_price_cents * kept(l), 0);

export const isOpen = (lines: OrderlineRow[]) => lines.some((l) => open(l) > 0);

/** Shipping price at the order's level for what is still kept; nothing when all is canceled. */
export function repriceShipping(order: OrderRow, parcel: Parcel | null): number {
  if (!parcel || parcel.items === 0 || !order.shipping_level) return 0;
  return priceAt(parcel, order.shipping_level) ?? order.shipping_cents;
}

export function toOrder(o: OrderRow, lines: OrderlineRow[], storeCode: string) {
  const products = productsCents(lines);
  return {
    reference: o.id,
    storeReference: o.store_id,
    shippingKind: o.shipping_kind,
    customIdentifier: o.custom_identifier,
    dropshipAddressReference: o.dropship_address_id,
    dropshipMinimalShippingLevel: o.minimal_shipping_level,
    shippingLevel: o.shipping_level,
    status: { code: o.status, modified: o.status_modified_at.toISOString() },
    orderlines: lines.map((l) => ({
      index: l.line_index,
      productReference: l.product_id,
      imageReference: l.image_id,
      quantity: l.quantity,
      canceledQuantity: l.canceled_quantity,
      shippedQuantity: l.shipped_quantity,
      annotations: l.annotations,
    })),
    brandReference: o.brand_id,
    preferredPackagingReference: o.packaging_id,
    created: o.created_at.toISOString(),
    legacyOrderCode: `${storeCode}-${o.order_number}`,
    shipmentReference: o.shipment_id,
    replacementForClaimReference: o.replacement_for_claim_id,
    viaStoreCode: o.via_store_code,
    upstreamOrder: o.upstream_order_id ? { id: o.upstream_order_id, name: o.upstream_order_name ?? '' } : null,
    prices: { products, shipping: o.shipping_cents, total: products + o.shipping_cents },
  };
}
export type OrderView = ReturnType<typeof toOrder>;

export const addressView = (id: string, fields: Address) => ({ reference: id, ...fields });

/** Loads the order as GET returns it, inside a transaction (events carry this). */
export async function orderViewIn(ex: Executor, orgId: string, orderId: string, storeCode: string): Promise<OrderView> {
  const o = (await repo.order(ex, orgId, orderId))!;
  return toOrder(o, await repo.lines(ex, [o.id]), storeCode);
}

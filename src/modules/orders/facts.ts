import type { ShippingLevel } from '../shipping/data.ts';
import type { OrderlineRow, OrderRow, OrderStatus } from './repo.ts';

/** An order as other modules read it: shipments ship it, claims refund it, production prints it. */
export interface OrderFacts {
  id: string;
  organizationId: string;
  storeId: string;
  orderNumber: number;
  status: OrderStatus;
  shippingKind: 'dropship' | 'combined';
  shippingLevel: ShippingLevel | null;
  /** What its shipping was charged (a combined shipment's share once shipped). */
  shippingCents: number;
  dropshipAddressId: string | null;
  brandId: string | null;
  customIdentifier: string | null;
  shipmentId: string | null;
  /** The order this one replaces (a claim's replacement order). */
  replacesOrderId: string | null;
  createdAt: Date;
}

/** An order line as other modules read it. */
export interface OrderlineFacts {
  orderId: string;
  index: number;
  productId: string;
  imageId: string | null;
  quantity: number;
  canceledQuantity: number;
  shippedQuantity: number;
  unitPriceCents: number;
  unitWeightGrams: number;
}

export const orderFacts = (o: OrderRow): OrderFacts => ({
  id: o.id,
  organizationId: o.organization_id,
  storeId: o.store_id,
  orderNumber: o.order_number,
  status: o.status,
  shippingKind: o.shipping_kind,
  shippingLevel: o.shipping_level,
  shippingCents: o.shipping_cents,
  dropshipAddressId: o.dropship_address_id,
  brandId: o.brand_id,
  customIdentifier: o.custom_identifier,
  shipmentId: o.shipment_id,
  replacesOrderId: o.replaces_order_id,
  createdAt: o.created_at,
});

export const orderlineFacts = (l: OrderlineRow): OrderlineFacts => ({
  orderId: l.order_id,
  index: l.line_index,
  productId: l.product_id,
  imageId: l.image_id,
  quantity: l.quantity,
  canceledQuantity: l.canceled_quantity,
  shippedQuantity: l.shipped_quantity,
  unitPriceCents: l.unit_price_cents,
  unitWeightGrams: l.unit_weight_grams,
});

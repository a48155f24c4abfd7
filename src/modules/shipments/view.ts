import type { Executor } from '../../platform/db/index.ts';
import type { ShippingLevel } from '../shipping/data.ts';
import type { ShipmentsDeps } from './deps.ts';
import { type Attention, type ShipmentRow, shipmentsRepo as repo } from './repo.ts';
import { currentStatus, trackingEventView } from './tracking-events.ts';

export const tracked = (level: ShippingLevel) => level !== 'basic';

/** A shipment as other modules read it: claims (warranty, delivery window), production (documents). */
export interface ShipmentFacts {
  id: string;
  organizationId: string;
  storeId: string;
  level: ShippingLevel;
  /** The address it left with (`shipmentAddress` reads its fields). */
  addressId: string;
  carrier: string | null;
  trackingNumber: string | null;
  shippedAt: Date;
  /** When the carrier reported it delivered. */
  deliveredAt: Date | null;
  /** Why it needs an operator's look (the carrier reported it returned, stuck, lost or refused). */
  attention: Attention | null;
}

export const shipmentFacts = (s: ShipmentRow): ShipmentFacts => ({
  id: s.id,
  organizationId: s.organization_id,
  storeId: s.store_id,
  level: s.level,
  addressId: s.address_id,
  carrier: s.carrier,
  trackingNumber: s.tracking_number,
  shippedAt: s.shipped_at,
  deliveredAt: s.delivered_at,
  attention: s.attention,
});

/** A shipment as the API, the webhooks and the console show it. */
export function shipmentView(deps: Pick<ShipmentsDeps, 'config' | 'orders'>) {
  const trackingUrl = (token: string) => `${deps.config.publicBaseUrl}/tracking/${token}`;
  return async function view(ex: Executor, s: ShipmentRow) {
    const [orders, tracking] = await Promise.all([
      deps.orders.ordersOfShipment(ex, s.id),
      repo.trackingEvents(ex, s.id),
    ]);
    return {
      reference: s.id,
      shippingKind: s.shipping_kind,
      level: s.level,
      shipped: s.shipped_at.toISOString(),
      addressReference: s.address_id,
      orders: orders.map((o) => ({ reference: o.id })),
      ...(tracked(s.level)
        ? {
            carrier: s.carrier,
            trackingNumber: s.tracking_number,
            trackingUrl: s.tracking_token ? trackingUrl(s.tracking_token) : null,
          }
        : {}),
      trackingStatus: currentStatus(tracking),
      trackingEvents: tracking.map(trackingEventView),
    };
  };
}

export type ShipmentView = ReturnType<typeof shipmentView>;

import type { Executor } from '../../platform/db/index.ts';
import type { ShippingLevel } from '../shipping/data.ts';
import type { ShipmentsDeps } from './deps.ts';
import { type ShipmentRow, shipmentsRepo as repo } from './repo.ts';
import { currentStatus, trackingEventView } from './tracking-events.ts';

export const tracked = (level: ShippingLevel) => level !== 'basic';

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

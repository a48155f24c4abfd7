import type { Executor } from '../../platform/db/index.ts';
import type { EventInput, EventsPort } from '../webhooks/events.ts';
import type { StorefrontsService } from './service.ts';

interface ShipmentData {
  shipment: {
    orders: Array<{ reference: string }>;
    carrier?: string | null;
    trackingNumber?: string | null;
    trackingUrl?: string | null;
    trackingStatus?: string | null;
    trackingEvents?: Array<{ occurred?: string }>;
  };
}

/**
 * The shipments module's events, heard in their own transaction: a shipment that leaves creates the
 * Shopify fulfillment of each of its orders that came from a Shopify store, a tracking number the
 * carrier gave later reaches that fulfillment, and its tracking updates become fulfillment events.
 * Every event still goes to the outbox unchanged.
 */
export function shipmentEventsTap(
  events: EventsPort,
  storefronts: () => StorefrontsService,
  storeOf: (ex: Executor, orgId: string, orderId: string) => Promise<string | null>,
): EventsPort {
  async function hear(tx: Executor, e: EventInput) {
    if (e.type !== 'shipment.created' && e.type !== 'shipment.tracking_updated') return;
    const s = (e.data as unknown as ShipmentData).shipment;
    const orders: Array<{ orderId: string; storeId: string; organizationId: string }> = [];
    for (const o of s.orders) {
      const storeId = await storeOf(tx, e.organizationId, o.reference);
      if (storeId) orders.push({ orderId: o.reference, storeId, organizationId: e.organizationId });
    }
    if (orders.length === 0) return;
    const withTracking = orders.map((o) => ({
      ...o,
      carrier: s.carrier ?? null,
      trackingNumber: s.trackingNumber ?? null,
      trackingUrl: s.trackingUrl ?? null,
    }));
    if (e.type === 'shipment.created') {
      await storefronts().shipped(tx, withTracking);
    } else if (!s.trackingStatus) {
      // An update before any tracking event: the carrier's label and number, announced after shipping.
      if (s.trackingNumber) await storefronts().trackingAssigned(tx, withTracking);
    } else {
      const last = s.trackingEvents?.at(-1)?.occurred;
      await storefronts().tracked(tx, orders, s.trackingStatus, last ? new Date(last) : new Date());
    }
  }
  return {
    async record(tx, e) {
      await hear(tx, e);
      return events.record(tx, e);
    },
    async recordMany(tx, list) {
      for (const e of list) await hear(tx, e);
      return events.recordMany(tx, list);
    },
  };
}

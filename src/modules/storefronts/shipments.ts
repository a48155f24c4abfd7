import type { Executor } from '../../platform/db/index.ts';
import type { Operations } from './operations.ts';
import { storefrontsRepo as repo } from './repo.ts';

/** Shopify's fulfillment event statuses for the carrier tracking statuses this service records. */
const EVENT_STATUS: Record<string, string> = {
  in_transit: 'IN_TRANSIT',
  out_for_delivery: 'OUT_FOR_DELIVERY',
  delivered: 'DELIVERED',
  exception: 'FAILURE',
  returned: 'FAILURE',
};

/** A shipment as the shipments module announces it. */
export interface ShippedOrder {
  orderId: string;
  storeId: string;
  organizationId: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
}

/**
 * Shipments of Shopify orders, heard in the shipments module's transactions (./tap.ts): each becomes
 * an operation that reports it to the shop (a fulfillment, its tracking, its events).
 */
export function shipmentHooks(ops: Operations) {
  /** One operation per order of a connected store, in the caller's transaction. */
  async function each(
    tx: Executor,
    orders: Array<{ orderId: string; storeId: string; organizationId: string }>,
    kind: string,
    payloadOf: (orderId: string) => Record<string, unknown>,
  ) {
    for (const o of orders) {
      if (!(await repo.connectionOfStore(tx, o.storeId))) continue;
      await ops.enqueue(tx, o.storeId, o.organizationId, { kind, subject: o.orderId, payload: payloadOf(o.orderId) });
    }
  }
  const tracking = (o: ShippedOrder) => ({
    orderId: o.orderId,
    company: o.carrier,
    number: o.trackingNumber,
    url: o.trackingUrl,
  });

  return {
    /** In the shipment's transaction: each shipped order of a Shopify store gets its fulfillment. */
    async shipped(tx: Executor, orders: ShippedOrder[]) {
      for (const o of orders) await each(tx, [o], 'fulfillment_create', () => tracking(o));
    },
    /** The carrier's tracking number arrived after the shipment left: the fulfillment gets it. */
    async trackingAssigned(tx: Executor, orders: ShippedOrder[]) {
      for (const o of orders) if (o.trackingNumber) await each(tx, [o], 'fulfillment_tracking', () => tracking(o));
    },
    /** In the tracking event's transaction: the fulfillment's status follows the carrier's. */
    async tracked(
      tx: Executor,
      orders: Array<{ orderId: string; storeId: string; organizationId: string }>,
      status: string,
      at: Date,
    ) {
      const shopifyStatus = EVENT_STATUS[status];
      if (!shopifyStatus) return;
      await each(tx, orders, 'fulfillment_event', (orderId) => ({
        orderId,
        status: shopifyStatus,
        happenedAt: at.toISOString(),
        message: null,
      }));
    },
  };
}

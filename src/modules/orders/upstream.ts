import { PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode, type Executor } from '../../platform/db/index.ts';
import { ApiError } from '../../platform/errors.ts';
import { ordersRepo as repo } from './repo.ts';
import type { OrdersService } from './service.ts';

/** Claims may be filed up to 100 days after a shipment left; addresses are kept that long. */
const CLAIM_WINDOW_DAYS = 100;

export interface UpstreamOrder {
  platform: string;
  upstreamId: string;
  upstreamName: string;
  minimalShippingLevel: 'basic' | 'tracked' | 'express';
  address: Record<string, string>;
  lines: Array<{
    productReference: string;
    imageReference?: string;
    quantity: number;
    annotations?: Array<{ key: string; value: string }>;
  }>;
}

/**
 * Orders that an upstream platform (a Shopify store) hands over: the same creation pipeline as
 * `POST /v2/orders` (stock, prices, numbering, billing, callback, webhooks), one order per upstream
 * order (a unique index decides), and the platform's cancellation and privacy requests.
 */
export function upstreamOrders(db: { query: Executor['query'] }, service: OrdersService) {
  return {
    /**
     * `taken`: the caller looked the upstream order up already (one query for a batch of them) and
     * found this order, or none (null); the unique index still decides between two paths at once.
     */
    async createUpstream(
      orgId: string,
      storeId: string,
      o: UpstreamOrder,
      taken?: string | null,
    ): Promise<{ reference: string; created: boolean }> {
      const existing = taken === undefined ? (await repo.upstreamOrder(db, storeId, o.upstreamId))?.id : taken;
      if (existing) return { reference: existing, created: false };
      try {
        const made = await service.create(
          orgId,
          {
            order: {
              storeReference: storeId,
              shippingKind: 'dropship',
              dropshipAddress: o.address,
              dropshipMinimalShippingLevel: o.minimalShippingLevel,
              orderlines: o.lines,
            },
          } as never,
          null,
          { id: o.upstreamId, name: o.upstreamName },
        );
        return { reference: made.reference, created: true };
      } catch (err) {
        // The same upstream order taken at the same moment by another path (webhook and fulfillment request).
        if (pgErrorCode(err) === PG_UNIQUE_VIOLATION && pgConstraint(err) === 'orders_upstream') {
          const won = await repo.upstreamOrder(db, storeId, o.upstreamId);
          if (won) return { reference: won.id, created: false };
        }
        throw err;
      }
    },
    /** The orders taken for these upstream orders of the store, by upstream id. */
    takenUpstream: (storeId: string, upstreamIds: string[]) => repo.upstreamOrders(db, storeId, upstreamIds),
    findUpstream: async (ex: Executor, storeId: string, upstreamId: string) => {
      const row = await repo.upstreamOrder(ex, storeId, upstreamId);
      return row ? { reference: row.id, status: row.status } : null;
    },
    /** Cancels every open quantity unless the order is in production (or further). */
    async cancelUpstream(orgId: string, orderRef: string): Promise<{ canceled: boolean; reason: string | null }> {
      const order = await service.get(orgId, orderRef);
      if (order.status.code === 'canceled') return { canceled: true, reason: null };
      if (order.status.code !== 'pending' && order.status.code !== 'preorder')
        return {
          canceled: false,
          reason: `Order ${orderRef} is ${order.status.code.replace('_', ' ')} and can no longer be canceled`,
        };
      try {
        await service.cancel(
          orgId,
          orderRef,
          order.orderlines.map((l) => ({ index: l.index, canceledQuantity: l.quantity - l.shippedQuantity })),
          true,
        );
        return { canceled: true, reason: null };
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) return { canceled: false, reason: err.message };
        throw err;
      }
    },
    async redactAddresses(storeId: string, upstreamIds: string[] | null, now: Date) {
      const r = await repo.redactUpstreamAddresses(db, storeId, upstreamIds, now, CLAIM_WINDOW_DAYS);
      return { redacted: r.redacted, waiting: r.next };
    },
  };
}

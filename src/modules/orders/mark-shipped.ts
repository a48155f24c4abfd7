import type { Executor } from '../../platform/db/index.ts';
import type { StoreFacts } from '../organization/service.ts';
import { enqueueOrderCallback } from './callback.ts';
import { type Shipped, chargeCombinedShipment } from './combined-shipping.ts';
import type { OrdersDeps } from './deps.ts';
import type { OrderFacts } from './facts.ts';
import { ordersRepo as repo } from './repo.ts';
import { orderViewIn } from './view.ts';

type ShipDeps = OrdersDeps & {
  /** This node is changing the order: its cached view is held until the change is announced. */
  touch: (orderId: string) => void;
};

/**
 * Ships every open quantity of the (locked) orders with the shipment, in the caller's
 * transaction: each order's `order.shipped` event and its order-updated callback.
 */
export async function markShipped(
  deps: ShipDeps,
  tx: Executor,
  locked: OrderFacts[],
  shipment: Shipped,
  store: StoreFacts,
  at: Date,
) {
  const shipmentId = shipment.id;
  // The caller locked them in this transaction; their rows are read here, where they are owned.
  const orders = await repo.ordersByIds(
    tx,
    null,
    locked.map((o) => o.id),
  );
  const lines = await repo.lines(
    tx,
    orders.map((o) => o.id),
  );
  await chargeCombinedShipment(deps, tx, { shipment, store, orders, lines });
  await deps.catalog.shipStock(
    tx,
    orders.map((o) => ({
      orderId: o.id,
      lines: lines
        .filter((l) => l.order_id === o.id)
        .map((l) => ({ productId: l.product_id, quantity: l.quantity - l.canceled_quantity - l.shipped_quantity })),
    })),
  );
  for (const o of orders) {
    deps.touch(o.id);
    await repo.markShipped(tx, o.id, shipmentId, at);
    await deps.events.record(tx, {
      organizationId: o.organization_id,
      type: 'order.shipped',
      data: { order: await orderViewIn(tx, o.organization_id, o.id, store.code) },
    });
    await enqueueOrderCallback(tx, deps.clock, o, store);
  }
}

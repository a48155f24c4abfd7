import type { Executor } from '../../platform/db/index.ts';
import { conflict } from '../../platform/errors.ts';
import { type OrderFacts, orderFacts } from './facts.ts';
import { type OrderRow, ordersRepo as repo } from './repo.ts';
import type { ChangeDeps, ChangeKit } from './change-kit.ts';

/**
 * Run in the transaction that starts production, with the order locked and still pending or a
 * pre-order, before it is charged: a throw keeps the order where it was (the release's holds).
 */
export type StartGuard = (tx: Executor, order: OrderFacts) => Promise<void>;

/** An order goes into production (charged then), and pre-orders are released when their products launch. */
export function productionStart(deps: ChangeDeps, kit: ChangeKit) {
  const { db, clock } = deps;
  const { changed, lockOrder, shippingAddress } = kit;
  return {
    async startProduction(o: OrderRow, guard?: StartGuard): Promise<void> {
      // What the invoice names of each product, read before the transaction: the catalog answers
      // from its own connection, which an open transaction on the embedded database would block.
      // An order's lines never change their product, so this read cannot go stale.
      const products = await deps.catalog.orderableProducts(
        o.organization_id,
        (await repo.lines(db, [o.id])).map((l) => l.product_id),
      );
      await db.tx(async (tx) => {
        const { order, lines, store } = await lockOrder(tx, o);
        if (order.status !== 'pending' && order.status !== 'preorder') {
          throw conflict(
            'order_not_pending',
            `Order ${order.id} is ${order.status}; only pending and preorder orders can go into production`,
          );
        }
        if (guard) await guard(tx, orderFacts(order));
        // The account pays now: products and shipping as the order shows them (billing module),
        // with what the invoice names: the products and where the goods go (VAT by place of supply).
        const shipTo = order.shipping_kind === 'dropship' ? await shippingAddress(tx, order) : store.combinedAddress;
        await deps.billing.chargeOrder(tx, order, lines, {
          products,
          shipTo: shipTo?.countryCode ? { country: shipTo.countryCode, postcode: shipTo.zipcode ?? '' } : null,
        });
        await repo.setStatus(tx, order.id, 'in_production', clock.now());
        await deps.productionStarted(tx, order);
        await changed(tx, order, store);
      });
    },
    /** A prelaunched product launched: its pre-orders with nothing else to wait for become `pending`. */
    async releasePreorders(productReference: string): Promise<number> {
      return db.tx(async (tx) => {
        let released = 0;
        for (const orderId of await repo.launchProduct(tx, productReference)) {
          deps.touch(orderId);
          const order = (await repo.order(tx, null, orderId, true))!;
          if (order.status !== 'preorder' || (await repo.stillAwaiting(tx, orderId))) continue;
          await repo.setStatus(tx, orderId, 'pending', clock.now());
          await changed(tx, order, await deps.storeOf(tx, order));
          released++;
        }
        return released;
      });
    },
  };
}

import { badRequest } from '../../platform/errors.ts';
import type { OperatorCancelSettle } from '../orders/changes.ts';
import type { ProductionDeps } from './deps.ts';
import { PRINTED_STATES, floorRepo } from './floor-repo.ts';
import { productionRepo as repo } from './repo.ts';

/**
 * An operator cancels lines of an order (or all of it), in production too, with a reason. The
 * partner hears it as any cancelation (order.updated and the legacy callback). Stock: a blank not
 * yet printed goes back to the available stock; a printed one is used up and leaves the shelf with
 * a movement naming the reason. Money: what production charged for the canceled quantities (and the
 * shipping, when nothing is left to ship) is credited on the account's ledger.
 */
export function operatorCancelation(deps: Pick<ProductionDeps, 'orders' | 'catalog' | 'billing' | 'clock'>) {
  return async function cancel(orderRef: string, input: { reason: string; orderlines?: number[] }) {
    const reason = input.reason.trim();
    if (!reason) throw badRequest('body.reason must say why the order is canceled');
    const settle: OperatorCancelSettle = async (tx, order, canceled, wholeOrder) => {
      const stock = {
        orderId: order.id,
        lines: canceled.map((c) => ({ productId: c.line.productId, quantity: c.quantity })),
      };
      const units = await floorRepo.cancelUnits(
        tx,
        order.id,
        canceled.map((c) => c.line.index),
        reason,
        deps.clock.now(),
      );
      if (order.status !== 'in_production') {
        await deps.catalog.releaseStock(tx, stock);
        return;
      }
      // A blank printed on is used up: the unit went through the printer, or the floor marked the
      // whole order produced. The others go back to the available stock.
      const produced = (await repo.produced(tx, [order.id])).has(order.id);
      const used = canceled.map((c) => ({
        productId: c.line.productId,
        quantity: produced
          ? c.quantity
          : units.filter((u) => u.line_index === c.line.index && PRINTED_STATES.includes(u.was)).length,
      }));
      const kept = canceled.map((c, i) => ({ productId: c.line.productId, quantity: c.quantity - used[i].quantity }));
      const some = (l: typeof used) => l.filter((x) => x.quantity > 0);
      if (some(used).length)
        await deps.catalog.writeOffStock(
          tx,
          { orderId: order.id, lines: some(used) },
          `printed for ${order.id}, then canceled: ${reason}`,
        );
      if (some(kept).length) await deps.catalog.releaseStock(tx, { orderId: order.id, lines: some(kept) });
      const amount =
        canceled.reduce((s, c) => s + c.line.unitPriceCents * c.quantity, 0) + (wholeOrder ? order.shippingCents : 0);
      if (order.replacesOrderId || amount === 0) return;
      await deps.billing.creditRefund(tx, {
        organizationId: order.organizationId,
        storeId: order.storeId,
        orderId: order.id,
        source: `cancel:${order.id}:${canceled.map((c) => `${c.line.index}x${c.quantity}`).join(',')}`,
        amountCents: amount,
        description: `Canceled in production (${wholeOrder ? 'whole order' : `lines ${canceled.map((c) => c.line.index).join(', ')}`}): ${reason}`,
      });
    };
    const done = await deps.orders.operatorCancel(orderRef, input.orderlines ?? null, settle);
    return { orderReference: orderRef, status: done.status, canceled: done.canceled, reason };
  };
}

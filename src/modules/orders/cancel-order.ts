import { badRequest, conflict } from '../../platform/errors.ts';
import { isPackstation } from '../shipping/address.ts';
import { parcelOf } from '../shipping/data.ts';
import { type OrderlineRow, type OrderRow, type OrderStatus, ordersRepo as repo } from './repo.ts';
import { repriceShipping } from './view.ts';
import { orderFacts, orderlineFacts } from './facts.ts';
import { type ChangeDeps, type ChangeKit, type OperatorCancelSettle, settledStatus } from './change-kit.ts';

/** A partner's cancelation of quantities, and an operator's of whole lines in any status before shipping. */
export function cancelUseCases(deps: ChangeDeps, kit: ChangeKit) {
  const { db, clock } = deps;
  const { changed, lockOrder, shippingAddress } = kit;
  return {
    async cancel(
      o: OrderRow,
      wanted: Array<{ index: number; canceledQuantity: number }>,
      viaUpstream = false,
    ): Promise<void> {
      await db.tx(async (tx) => {
        const { order, lines, store } = await lockOrder(tx, o);
        if (!viaUpstream) deps.writable(store);
        const seen = new Set<number>();
        const updates: Array<{ line: OrderlineRow; to: number }> = [];
        for (const [i, w] of wanted.entries()) {
          const field = `body.orderlines[${i}]`;
          if (seen.has(w.index)) throw badRequest(`${field}.index ${w.index} is listed twice`);
          seen.add(w.index);
          const line = lines.find((l) => l.line_index === w.index);
          if (!line) throw badRequest(`${field}.index: the order has no line ${w.index}`);
          // In production nothing can change: say so before judging the values (a repeat still passes).
          if (order.status === 'in_production' && w.canceledQuantity !== line.canceled_quantity) {
            throw conflict('already_in_production', `Order ${order.id} is in production and can no longer be canceled`);
          }
          if (w.canceledQuantity < line.canceled_quantity) {
            throw conflict(
              'canceled_quantity_below_current',
              `${field}.canceledQuantity ${w.canceledQuantity} is below the line's current canceled quantity ${line.canceled_quantity}; it is a total, not an increment`,
            );
          }
          const shippable = line.quantity - line.shipped_quantity;
          if (w.canceledQuantity > shippable) {
            throw conflict(
              'canceled_quantity_exceeds_shippable',
              `${field}.canceledQuantity ${w.canceledQuantity} is above quantity minus shipped quantity (${shippable})`,
            );
          }
          if (w.canceledQuantity !== line.canceled_quantity) updates.push({ line, to: w.canceledQuantity });
        }
        if (updates.length === 0) return; // a repeat of an earlier request
        await deps.catalog.releaseStock(tx, {
          orderId: order.id,
          lines: updates.map((u) => ({ productId: u.line.product_id, quantity: u.to - u.line.canceled_quantity })),
        });
        for (const u of updates) {
          await repo.setCanceled(tx, order.id, u.line.line_index, u.to);
          u.line.canceled_quantity = u.to;
        }
        let status = settledStatus(lines, order.status);
        if (status === 'preorder' && !(await repo.stillAwaiting(tx, order.id))) status = 'pending';
        await repo.setStatus(tx, order.id, status, clock.now());
        const address = await shippingAddress(tx, order);
        const parcel = address ? parcelOf(lines, address.countryCode!, isPackstation(address)) : null;
        await repo.setShipping(
          tx,
          order.id,
          order.shipping_level,
          status === 'canceled' ? 0 : repriceShipping(order, parcel),
        );
        await changed(tx, order, store);
      });
    },
    /**
     * Operator: cancels every open quantity of the given lines (all lines: null), whatever the
     * status before shipping, in production too. `settle` runs in the transaction with the locked
     * order as it was and what was canceled, for the stock and the money (production module).
     */
    async operatorCancel(
      o: OrderRow,
      indexes: number[] | null,
      settle: OperatorCancelSettle,
    ): Promise<{ status: OrderStatus; canceled: Array<{ index: number; quantity: number }> }> {
      return db.tx(async (tx) => {
        const { order, lines, store } = await lockOrder(tx, o);
        if (order.status === 'shipped' || order.status === 'canceled')
          throw conflict('order_completed', `Order ${order.id} is ${order.status}; there is nothing left to cancel`);
        for (const i of indexes ?? [])
          if (!lines.some((l) => l.line_index === i)) throw badRequest(`body.orderlines: the order has no line ${i}`);
        const chosen = lines.filter(
          (l) =>
            (indexes === null || indexes.includes(l.line_index)) &&
            l.quantity > l.canceled_quantity + l.shipped_quantity,
        );
        if (chosen.length === 0)
          throw conflict('order_completed', `The lines of order ${order.id} named have nothing left to cancel`);
        const canceled = chosen.map((l) => ({
          line: { ...l },
          quantity: l.quantity - l.canceled_quantity - l.shipped_quantity,
        }));
        for (const c of canceled) {
          const line = lines.find((l) => l.line_index === c.line.line_index)!;
          line.canceled_quantity += c.quantity;
          await repo.setCanceled(tx, order.id, line.line_index, line.canceled_quantity);
        }
        let status = settledStatus(lines, order.status);
        if (status === 'preorder' && !(await repo.stillAwaiting(tx, order.id))) status = 'pending';
        await settle(
          tx,
          orderFacts(order),
          canceled.map((c) => ({ line: orderlineFacts(c.line), quantity: c.quantity })),
          status === 'canceled',
        );
        await repo.setStatus(tx, order.id, status, clock.now());
        // In production the parcel still goes with what is left: its shipping stays as charged.
        if (status === 'canceled') await repo.setShipping(tx, order.id, order.shipping_level, 0);
        else if (order.status !== 'in_production') {
          const address = await shippingAddress(tx, order);
          const parcel = address ? parcelOf(lines, address.countryCode!, isPackstation(address)) : null;
          await repo.setShipping(tx, order.id, order.shipping_level, repriceShipping(order, parcel));
        }
        await changed(tx, order, store);
        return { status, canceled: canceled.map((c) => ({ index: c.line.line_index, quantity: c.quantity })) };
      });
    },
  };
}

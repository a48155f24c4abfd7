import type { Executor } from '../../platform/db/index.ts';
import type { StoreFacts } from '../organization/service.ts';
import type { Address } from '../shipping/address.ts';
import { enqueueOrderCallback } from './callback.ts';
import type { OrdersDeps } from './deps.ts';
import { type OrderlineRow, type OrderRow, type OrderStatus, ordersRepo as repo } from './repo.ts';
import { isOpen, orderViewIn } from './view.ts';
import type { OrderFacts, OrderlineFacts } from './facts.ts';

export interface ChangeDeps
  extends Pick<OrdersDeps, 'db' | 'clock' | 'organization' | 'events' | 'catalog' | 'billing'> {
  /** This node is changing the order: its cached view is held until the change is announced. */
  touch: (orderId: string) => void;
  writable: (store: StoreFacts) => void;
  storeOf: (ex: Executor, o: OrderRow) => Promise<StoreFacts>;
  /** Other modules' work that starts with production (print files), in the same transaction. */
  productionStarted: (tx: Executor, o: OrderRow) => Promise<void>;
}

/**
 * The stock and money of an operator's cancelation, in its transaction: `order` as it was before
 * (its status says whether it was charged), each canceled line with the quantity canceled.
 */
export type OperatorCancelSettle = (
  tx: Executor,
  order: OrderFacts,
  canceled: Array<{ line: OrderlineFacts; quantity: number }>,
  wholeOrder: boolean,
) => Promise<void>;

/** The status an order's lines imply once nothing is left open, else `current`. */
export function settledStatus(lines: OrderlineRow[], current: OrderStatus): OrderStatus {
  if (lines.every((l) => l.canceled_quantity === l.quantity)) return 'canceled';
  if (!isOpen(lines)) return 'shipped';
  return current;
}

/** What every change of an order does: lock it with its lines and store, read where it goes, announce it. */
export function changeKit(deps: ChangeDeps) {
  const { clock, events } = deps;

  /** order.updated and the legacy callback, in the transaction of the change. */
  async function changed(tx: Executor, o: OrderRow, store: StoreFacts): Promise<void> {
    await events.record(tx, {
      organizationId: o.organization_id,
      type: 'order.updated',
      data: { order: await orderViewIn(tx, o.organization_id, o.id, store.code) },
    });
    await enqueueOrderCallback(tx, clock, o, store);
  }

  async function lockOrder(
    tx: Executor,
    o: OrderRow,
  ): Promise<{ order: OrderRow; lines: OrderlineRow[]; store: StoreFacts }> {
    deps.touch(o.id);
    const order = (await repo.order(tx, o.organization_id, o.id, true))!;
    return { order, lines: await repo.lines(tx, [o.id]), store: await deps.storeOf(tx, order) };
  }

  async function shippingAddress(tx: Executor, o: OrderRow): Promise<Address | null> {
    return o.dropship_address_id ? ((await repo.address(tx, o.dropship_address_id))?.fields ?? null) : null;
  }

  return { changed, lockOrder, shippingAddress };
}

export type ChangeKit = ReturnType<typeof changeKit>;

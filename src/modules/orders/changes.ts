import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import type { StoreRecord } from '../organization/service.ts';
import { type Address, isPackstation, validateAddress } from '../shipping/address.ts';
import { type ShippingLevel, parcelOf, shippingOptions } from '../shipping/data.ts';
import { enqueueOrderCallback } from './callback.ts';
import type { OrdersDeps } from './deps.ts';
import { type OrderlineRow, type OrderRow, type OrderStatus, ordersRepo as repo } from './repo.ts';
import { isOpen, orderViewIn, repriceShipping } from './view.ts';
import { stockLines } from './writer.ts';

/** `order:<id>` on the change feed: announced by the triggers of migration 0019 on commit. */
export const ORDER_TOPIC = 'order';

interface ChangeDeps extends Pick<OrdersDeps, 'db' | 'clock' | 'organization' | 'events' | 'catalog' | 'billing'> {
  /** This node is changing the order: its cached view is held until the change is announced. */
  touch: (orderId: string) => void;
  writable: (store: StoreRecord) => void;
  storeOf: (ex: Executor, o: OrderRow) => Promise<StoreRecord>;
  /** Other modules' work that starts with production (print files), in the same transaction. */
  productionStarted: (tx: Executor, o: OrderRow) => Promise<void>;
}

/**
 * The stock and money of an operator's cancelation, in its transaction: `order` as it was before
 * (its status says whether it was charged), each canceled line with the quantity canceled.
 */
export type OperatorCancelSettle = (
  tx: Executor,
  order: OrderRow,
  canceled: Array<{ line: OrderlineRow; quantity: number }>,
  wholeOrder: boolean,
) => Promise<void>;

/** The status an order's lines imply once nothing is left open, else `current`. */
function settledStatus(lines: OrderlineRow[], current: OrderStatus): OrderStatus {
  if (lines.every((l) => l.canceled_quantity === l.quantity)) return 'canceled';
  if (!isOpen(lines)) return 'shipped';
  return current;
}

/** Cancelation, address change and production start: each one transaction on the locked order row. */
export function orderChanges(deps: ChangeDeps) {
  const { db, clock, events } = deps;

  /** order.updated and the legacy callback, in the transaction of the change. */
  async function changed(tx: Executor, o: OrderRow, store: StoreRecord): Promise<void> {
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
  ): Promise<{ order: OrderRow; lines: OrderlineRow[]; store: StoreRecord }> {
    deps.touch(o.id);
    const order = (await repo.order(tx, o.organization_id, o.id, true))!;
    return { order, lines: await repo.lines(tx, [o.id]), store: await deps.storeOf(tx, order) };
  }

  async function shippingAddress(tx: Executor, o: OrderRow): Promise<Address | null> {
    return o.dropship_address_id ? ((await repo.address(tx, o.dropship_address_id))?.fields ?? null) : null;
  }

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

    async changeAddress(orgId: string, o: OrderRow, input: Record<string, unknown>): Promise<void> {
      await db.tx(async (tx) => {
        const { order, lines, store } = await lockOrder(tx, o);
        deps.writable(store);
        if (order.shipping_kind !== 'dropship')
          throw conflict(
            'order_not_dropship',
            `Order ${order.id} is a combined order: it ships to the store's combined address`,
          );
        if (order.replaces_order_id)
          throw conflict(
            'replacement_address_locked',
            `Order ${order.id} replaces a claimed order and goes to the claim's destination; its address cannot change`,
          );
        if (!isOpen(lines))
          throw conflict(
            'order_completed',
            `Every line of order ${order.id} is shipped or canceled; the address can no longer change`,
          );
        const address = validateAddress(input, 'body.dropshipAddress');
        const parcel = parcelOf(lines, address.countryCode!, isPackstation(address));
        const chosen = shippingOptions(parcel, order.minimal_shipping_level ?? 'basic')[0];
        if (!chosen)
          throw badRequest(`body.dropshipAddress: no shipping level can carry this order to ${address.countryCode}`);
        const id = newReference('Address');
        await repo.insertAddress(tx, { id, organization_id: orgId, fields: address, created_at: clock.now() });
        await repo.setAddress(tx, order.id, id);
        await repo.setShipping(tx, order.id, chosen.level, chosen.price);
        await changed(tx, order, store);
      });
    },

    async startProduction(o: OrderRow): Promise<void> {
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
        // The account pays now: products and shipping as the order shows them (billing module),
        // with what the invoice names: the products and where the goods go (VAT by place of supply).
        const shipTo = order.shipping_kind === 'dropship' ? await shippingAddress(tx, order) : store.combined_address;
        await deps.billing.chargeOrder(tx, order, lines, {
          products,
          shipTo: shipTo?.countryCode ? { country: shipTo.countryCode, postcode: shipTo.zipcode ?? '' } : null,
        });
        await repo.setStatus(tx, order.id, 'in_production', clock.now());
        await deps.productionStarted(tx, order);
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
        await settle(tx, order, canceled, status === 'canceled');
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

    /**
     * For the claims module, inside its transaction: a free order of the claimed lines, to the
     * destination the shipment went to, at the shipment's level. Its address cannot be changed.
     */
    async createReplacementOrder(
      tx: Executor,
      r: {
        organizationId: string;
        claimReference: string;
        orderReference: string;
        address: Address;
        shippingLevel: ShippingLevel;
        lines: Array<{ orderlineIndex: number; quantity: number }>;
      },
    ): Promise<{ reference: string }> {
      const original = mustFind(await repo.order(tx, r.organizationId, r.orderReference), 'Order');
      const originalLines = await repo.lines(tx, [original.id]);
      const store = await deps.storeOf(tx, original);
      const now = clock.now();
      const id = newReference('Order');
      const addressId = newReference('Address');
      const lines = r.lines.map((l, i) => {
        const src = originalLines.find((x) => x.line_index === l.orderlineIndex);
        if (!src) throw new Error(`order ${original.id} has no line ${l.orderlineIndex}`);
        return {
          ...src,
          order_id: id,
          line_index: i + 1,
          quantity: l.quantity,
          canceled_quantity: 0,
          shipped_quantity: 0,
          unit_price_cents: 0,
          awaiting_launch: false,
        };
      });
      const order: Omit<OrderRow, 'seq'> = {
        id,
        organization_id: r.organizationId,
        store_id: original.store_id,
        order_number: await deps.organization.nextOrderNumber(tx, original.store_id),
        shipping_kind: 'dropship',
        custom_identifier: null,
        dropship_address_id: addressId,
        minimal_shipping_level: r.shippingLevel,
        shipping_level: r.shippingLevel,
        brand_id: original.brand_id,
        packaging_id: original.packaging_id,
        status: 'pending',
        status_modified_at: now,
        shipping_cents: 0,
        shipment_id: null,
        replacement_for_claim_id: r.claimReference,
        replaces_order_id: original.id,
        via_store_code: original.via_store_code,
        created_at: now,
      };
      await repo.insertOrders(tx, [
        {
          order,
          lines,
          address: { id: addressId, organization_id: r.organizationId, fields: r.address, created_at: now },
        },
      ]);
      // Support promised these items: they are reserved even when that takes the stock below zero.
      await deps.catalog.reserveStock(tx, [stockLines({ order, lines })], { mayOversell: true });
      await events.record(tx, {
        organizationId: r.organizationId,
        type: 'order.created',
        data: { order: await orderViewIn(tx, r.organizationId, id, store.code) },
      });
      return { reference: id };
    },
  };
}

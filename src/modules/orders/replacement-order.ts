import type { Executor } from '../../platform/db/index.ts';
import { mustFind } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import type { Address } from '../shipping/address.ts';
import type { ShippingLevel } from '../shipping/data.ts';
import { type OrderRow, ordersRepo as repo } from './repo.ts';
import { orderViewIn } from './view.ts';
import { stockLines } from './writer.ts';
import type { ChangeDeps } from './change-kit.ts';

/** Free replacement orders of claimed lines, made by the claims module's decisions. */
export function replacementOrders(deps: ChangeDeps) {
  const { clock, events } = deps;
  return {
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

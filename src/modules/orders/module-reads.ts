import type { Executor } from '../../platform/db/index.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { Address } from '../shipping/address.ts';
import { type OrderFacts, type OrderlineFacts, orderFacts, orderlineFacts } from './facts.ts';
import { ordersRepo as repo } from './repo.ts';
import { orderViewIn } from './view.ts';

/**
 * What other modules (shipments, claims, storefronts) read and write of orders in their own
 * transactions, by the executor they pass.
 */
export const moduleReads = {
  /** For other modules: the order, organization-scoped (null when absent or foreign). */
  async order(ex: Executor, orgId: string, id: string): Promise<OrderFacts | null> {
    const o = isReference('Order', id) ? await repo.order(ex, orgId, id) : null;
    return o && orderFacts(o);
  },
  orderlines: async (ex: Executor, orderId: string): Promise<OrderlineFacts[]> =>
    (await repo.lines(ex, [orderId])).map(orderlineFacts),
  orderView: orderViewIn,
  /** The replacement already created for an order, if any (claims: one replacement per order). */
  async replacementOf(ex: Executor, orderId: string): Promise<OrderFacts | null> {
    const o = await repo.replacementOf(ex, orderId);
    return o && orderFacts(o);
  },
  /** The replacement orders a claim's decision created, oldest first (claims list them). */
  replacementOrdersOfClaim: (ex: Executor, orgId: string, claimId: string) =>
    repo.replacementOrdersOfClaim(ex, orgId, claimId),

  // ---- for shipments ----
  /** Orders by reference (`orgId` null: any organization), optionally locked in the caller's transaction. */
  ordersByIds: async (ex: Executor, orgId: string | null, ids: string[], lock = false): Promise<OrderFacts[]> =>
    (await repo.ordersByIds(ex, orgId, ids, lock)).map(orderFacts),
  ordersOfShipment: async (ex: Executor, shipmentId: string): Promise<OrderFacts[]> =>
    (await repo.ordersOfShipment(ex, shipmentId)).map(orderFacts),
  /** The fields of an address (a shipment's or an order's), or null. */
  addressFields: async (ex: Executor, id: string): Promise<Address | null> =>
    (await repo.address(ex, id))?.fields ?? null,
  /** Stores an address (a combined shipment keeps the one it left with); returns its reference. */
  async createAddress(tx: Executor, orgId: string, fields: Address, at: Date): Promise<string> {
    const id = newReference('Address');
    await repo.insertAddress(tx, { id, organization_id: orgId, fields, created_at: at });
    return id;
  },
};

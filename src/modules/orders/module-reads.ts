import type { Executor } from '../../platform/db/index.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { Address } from '../shipping/address.ts';
import { ordersRepo as repo } from './repo.ts';
import { orderViewIn } from './view.ts';

/**
 * What other modules (shipments, claims, storefronts) read and write of orders in their own
 * transactions, by the executor they pass.
 */
export const moduleReads = {
  /** For other modules: the order row, organization-scoped (null when absent or foreign). */
  orderRow: (ex: Executor, orgId: string, id: string) =>
    isReference('Order', id) ? repo.order(ex, orgId, id) : Promise.resolve(null),
  orderlines: (ex: Executor, orderId: string) => repo.lines(ex, [orderId]),
  orderView: orderViewIn,
  /** The replacement already created for an order, if any (claims: one replacement per order). */
  replacementOf: (ex: Executor, orderId: string) => repo.replacementOf(ex, orderId),
  /** The replacement orders a claim's decision created, oldest first (claims list them). */
  replacementOrdersOfClaim: (ex: Executor, orgId: string, claimId: string) =>
    repo.replacementOrdersOfClaim(ex, orgId, claimId),

  // ---- for shipments ----
  /** Orders by reference (`orgId` null: any organization), optionally locked in the caller's transaction. */
  ordersByIds: (ex: Executor, orgId: string | null, ids: string[], lock = false) =>
    repo.ordersByIds(ex, orgId, ids, lock),
  ordersOfShipment: (ex: Executor, shipmentId: string) => repo.ordersOfShipment(ex, shipmentId),
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

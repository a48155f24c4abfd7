import { type Executor, retriedOnConflict } from '../../platform/db/index.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { isReference, newReference, randomId } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import type { OrderFacts } from '../orders/service.ts';
import type { Address } from '../shipping/address.ts';
import type { ShippingLevel } from '../shipping/data.ts';
import { ANNOUNCE_JOB, announceKey } from './announce.ts';
import type { ShipmentsDeps } from './deps.ts';
import { shipmentsRepo as repo } from './repo.ts';
import { type ShipmentFacts, type ShipmentView, shipmentFacts, tracked } from './view.ts';

export interface ShipInput {
  orderReferences: string[];
  shippedAt?: string;
  carrier?: string;
  trackingNumber?: string;
}

/** Called in the transaction that creates a shipment (shipping labels, packing slips). */
export type ShippedListener = (tx: Executor, shipment: ShipmentFacts) => Promise<void>;

/** Orders named in a request body: unknown or foreign ones are a 400 naming the entry. */
async function namedOrders(
  deps: Pick<ShipmentsDeps, 'orders'>,
  ex: Executor,
  orgId: string | null,
  refs: string[],
  field: string,
): Promise<OrderFacts[]> {
  const rows = await deps.orders.ordersByIds(
    ex,
    orgId,
    refs.filter((r) => isReference('Order', r)),
  );
  const out: OrderFacts[] = [];
  for (const [i, ref] of refs.entries()) {
    const row = rows.find((r) => r.id === ref);
    if (!row) throw badRequest(`${field}[${i}] is not an order of this organization`);
    if (out.includes(row)) throw badRequest(`${field}[${i}] lists ${ref} twice`);
    out.push(row);
  }
  if (new Set(out.map((o) => o.organizationId)).size > 1)
    throw badRequest(`${field} names orders of different organizations`);
  return out;
}

/** The shipping level, and how the carrier labels the parcel; a 400 for what cannot ship together. */
function plan(deps: Pick<ShipmentsDeps, 'carrier'>, orders: OrderFacts[], input: ShipInput, field: string) {
  const first = orders[0];
  if (first.shippingKind === 'dropship' && orders.length > 1)
    throw badRequest(`${field}.orderReferences: a dropship order ships alone, one order per shipment`);
  if (orders.some((o) => o.shippingKind !== first.shippingKind))
    throw badRequest(`${field}.orderReferences mixes dropship and combined orders`);
  if (orders.some((o) => o.storeId !== first.storeId))
    throw badRequest(
      `${field}.orderReferences: combined orders are consolidated per store; these belong to different stores`,
    );
  const level: ShippingLevel = first.shippingKind === 'dropship' ? (first.shippingLevel ?? 'tracked') : 'tracked';
  if (!tracked(level) && (input.carrier !== undefined || input.trackingNumber !== undefined)) {
    throw badRequest(
      `${field}.carrier: a basic shipment has no carrier tracking; leave carrier and trackingNumber out`,
    );
  }
  const assignment = tracked(level)
    ? deps.carrier.assign(
        {
          level,
          ...(input.carrier !== undefined ? { carrier: input.carrier } : {}),
          ...(input.trackingNumber !== undefined ? { trackingNumber: input.trackingNumber } : {}),
        },
        field,
      )
    : null;
  return { level, assignment };
}

/** Shipping orders: the checks on what may ship together, the carrier's label, and the shipment itself. */
export function shipping(deps: ShipmentsDeps, view: ShipmentView, listeners: ShippedListener[]) {
  const { db, clock, organization, events } = deps;

  /**
   * Ships every open quantity of the orders as one shipment: one dropship order, or combined
   * orders of one store. `orgId` null: the operator, for any organization. `inTx`: in the caller's
   * transaction (the pack station ships under the lock of the parcel it packed), else in its own.
   */
  return async function ship(orgId: string | null, input: ShipInput, field = 'body.shipment', inTx?: Executor) {
    const orders = await namedOrders(deps, inTx ?? db, orgId, input.orderReferences, `${field}.orderReferences`);
    const first = orders[0];
    const now = clock.now();
    const shippedAt = input.shippedAt ? new Date(input.shippedAt) : now;
    if (shippedAt.getTime() > now.getTime()) throw badRequest(`${field}.shippedAt lies in the future`);
    const { level, assignment } = plan(deps, orders, input, field);
    const orgOf = first.organizationId;
    const id = newReference('Shipment');
    const run = <T>(fn: (tx: Executor) => Promise<T>) => (inTx ? fn(inTx) : retriedOnConflict(() => db.tx(fn)));
    await run(async (tx) => {
      // The pack station's lock order: the store's combined parcel first, then the order rows.
      if (first.shippingKind === 'combined') await repo.lockCombined(tx, first.storeId);
      const locked = await deps.orders.ordersByIds(
        tx,
        orgOf,
        orders.map((o) => o.id),
        true,
      );
      for (const o of locked) {
        if (o.status !== 'in_production')
          throw conflict('order_not_in_production', `Order ${o.id} is ${o.status}; only orders in production can ship`);
      }
      const store = (await organization.storeIn(tx, orgOf, first.storeId))!;
      let addressId = first.dropshipAddressId;
      if (first.shippingKind === 'combined') {
        // The shipment keeps the address it left with, even if the store's combined address changes.
        if (!store.combinedAddress)
          throw conflict('store_has_no_combined_address', `Store ${store.code} has no combined address`);
        addressId = await deps.orders.createAddress(tx, orgOf, store.combinedAddress as Address, now);
      }
      await repo.insert(tx, {
        id,
        organization_id: orgOf,
        store_id: first.storeId,
        shipping_kind: first.shippingKind,
        level,
        address_id: addressId!,
        carrier: assignment?.kind === 'now' ? assignment.carrier : null,
        tracking_number: assignment?.kind === 'now' ? assignment.trackingNumber : null,
        tracking_token: tracked(level) ? randomId(32) : null,
        shipped_at: shippedAt,
        created_at: now,
        label_state: assignment?.kind === 'announce' ? 'pending' : 'assigned',
        carrier_adapter: deps.carrier.kind,
      });
      if (assignment?.kind === 'announce')
        await enqueue(
          tx,
          clock,
          ANNOUNCE_JOB,
          { shipmentId: id },
          { organizationId: orgOf, dedupeKey: announceKey(id, 0), maxAttempts: 12 },
        );
      await deps.orders.markShipped(tx, locked, { id, level }, store, now);
      const created = (await repo.shipment(tx, orgOf, id))!;
      if (listeners.length > 0) {
        const facts = shipmentFacts(created);
        for (const l of listeners) await l(tx, facts);
      }
      await events.record(tx, {
        organizationId: orgOf,
        type: 'shipment.created',
        data: { shipment: await view(tx, created) },
      });
    });
    return { reference: id };
  };
}

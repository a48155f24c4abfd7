import type { Static } from 'typebox';
import type { Executor } from '../../platform/db/index.ts';
import { ApiError, conflict, mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { StoreRecord } from '../organization/service.ts';
import { normalizeAddress } from '../shipping/address.ts';
import type { OrdersDeps } from './deps.ts';
import { orderIntake } from './intake.ts';
import { quote } from './quote.ts';
import { type OrderRow, ordersRepo as repo } from './repo.ts';
import { callbackAttempt, callbackJobs, orderActivity } from './activity.ts';
import type { CreateOrderBody, QuoteBody } from './schemas.ts';
import type { Shipped } from './combined-shipping.ts';
import { isOpen, repriceShipping } from './view.ts';
import { type OperatorCancelSettle, orderChanges } from './changes.ts';
import { orderWriter } from './writer.ts';
import { createOrder } from './create-order.ts';
import { moduleReads } from './module-reads.ts';
import { orderReads } from './order-reads.ts';
import { markShipped } from './mark-shipped.ts';
import type { StartGuard } from './production-start.ts';

export type OrdersService = ReturnType<typeof ordersService>;
/** An order and its lines as other modules get them from this service (shipments, claims). */
export type OrderRecord = OrderRow;
export type { CallbackAttempt, CallbackJob, OrderActivity, OrdersOnDay } from './activity.ts';
/** Called in the transaction that puts an order into production, with the locked order row. */
export type ProductionListener = (tx: Executor, order: OrderRow) => Promise<void>;

/**
 * Orders: creating one (create-order.ts), reading them (order-reads.ts), changing them
 * (changes.ts) and shipping them (mark-shipped.ts), composed with what other modules ask.
 */
export function ordersService(deps: OrdersDeps) {
  const { db, organization } = deps;
  const intake = orderIntake(deps);
  const { bodyStore, writable } = intake;

  const reads = orderReads(deps, bodyStore);
  const { touch, findOrder, findAddress } = reads;

  /** The order row; `orgId` null: any organization (operator). */
  const orderRow = async (orgId: string | null, ref: string) =>
    isReference('Order', ref) ? repo.order(db, orgId, ref) : null;

  const writer = orderWriter({ db, events: deps.events, organization, catalog: deps.catalog });
  const productionListeners: ProductionListener[] = [];
  const changes = orderChanges({
    ...deps,
    touch,
    writable,
    storeOf: (ex, o) => organization.storeRowIn(ex, o.organization_id, o.store_id) as Promise<StoreRecord>,
    async productionStarted(tx, o) {
      for (const l of productionListeners) await l(tx, o);
    },
  });

  const service = {
    /** `viaStoreCode`: the integrator code of the key that creates the order, if any (create-order.ts). */
    create: (
      orgId: string,
      body: Static<typeof CreateOrderBody>,
      viaStoreCode: string | null = null,
      upstream: { id: string; name: string } | null = null,
    ) =>
      createOrder(
        { deps, intake, writer, assertIdentifierFree: (o, c) => service.assertIdentifierFree(o, c) },
        orgId,
        body,
        viaStoreCode,
        upstream,
      ),

    async assertIdentifierFree(orgId: string, customIdentifier: string) {
      const existing = await repo.orderByCustomIdentifier(db, orgId, customIdentifier);
      if (existing)
        throw conflict(
          'custom_identifier_in_use',
          `customIdentifier "${customIdentifier}" is already used by order ${existing.id}`,
        );
    },

    get: async (orgId: string, ref: string) => mustFind(await findOrder(orgId, ref), 'Order', ref),
    /** The order as GET shows it, or null when it does not exist or belongs to another organization. */
    find: findOrder,
    /** The newest attempts of the store callback for an order of the organization, oldest first. */
    callbackAttempts: async (orgId: string, ref: string, limit = 100) =>
      isReference('Order', ref) ? (await repo.callbackAttempts(db, orgId, ref, limit)).map(callbackAttempt) : [],
    /** The store callback's jobs of an order the caller has found (the dashboard's order timeline). */
    callbackJobs: (orderRef: string) => callbackJobs(db, orderRef),
    /** Orders per day and status since `since`, their spend, and counts by status (the partner overview). */
    activity: (orgId: string, since: Date) => orderActivity(db, orgId, since),
    /** Callback attempts older than `before` (the hourly maintenance job). */
    purgeCallbackAttempts: (before: Date) => repo.purgeCallbackAttempts(db, before),

    list: reads.list,
    lookupByCustomIdentifier: reads.lookupByCustomIdentifier,

    address: async (orgId: string, ref: string) => mustFind(await findAddress(orgId, ref), 'Address', ref),
    /** The address as GET shows it, or null when it does not resolve for the organization. */
    findAddress,

    /** `viaUpstream`: the store's platform asked (the API's store rule does not apply). */
    async cancel(
      orgId: string,
      ref: string,
      wanted: Array<{ index: number; canceledQuantity: number }>,
      viaUpstream = false,
    ) {
      await changes.cancel(mustFind(await orderRow(orgId, ref), 'Order', ref), wanted, viaUpstream);
    },
    /** Operator: cancels lines (null: the whole order) in any status before shipping; see changes.ts. */
    async operatorCancel(ref: string, indexes: number[] | null, settle: OperatorCancelSettle) {
      return changes.operatorCancel(mustFind(await orderRow(null, ref), 'Order', ref), indexes, settle);
    },
    async changeAddress(orgId: string, ref: string, input: Record<string, unknown>) {
      await changes.changeAddress(orgId, mustFind(await orderRow(orgId, ref), 'Order', ref), input);
    },
    /**
     * Work that starts with production, run in the transaction that moves the order (a module above
     * this one subscribes here: print files). A throwing listener rolls the production start back.
     */
    onProductionStarted(listener: ProductionListener): void {
      productionListeners.push(listener);
    },
    /**
     * Test helper, operator and the release: `pending`/`preorder` → `in_production`. `orgId` null:
     * any organization. `guard` runs in the start's transaction (the release re-checks its holds).
     */
    async startProduction(orgId: string | null, ref: string, guard?: StartGuard) {
      await changes.startProduction(mustFind(await orderRow(orgId, ref), 'Order', ref), guard);
    },
    /**
     * A prepaid account was topped up: its pending orders, which production start refused for want
     * of balance, go into production, the oldest first, while the balance covers them.
     */
    async releasePrepaidHeld(accountId: string): Promise<string[]> {
      const started: string[] = [];
      for (const id of await repo.pendingOfAccount(db, accountId)) {
        const row = await repo.order(db, null, id);
        if (row?.status !== 'pending') continue;
        try {
          await changes.startProduction(row);
          started.push(id);
        } catch (err) {
          if (err instanceof ApiError && err.code === 'insufficient_balance') break;
          if (err instanceof ApiError && err.code === 'order_not_pending') continue;
          throw err;
        }
      }
      return started;
    },
    /** Shipping options and prices of a prospective order (POST /quote); nothing is stored. */
    quote: (orgId: string, body: Static<typeof QuoteBody>) => quote(intake, orgId, body),

    releasePreorders: changes.releasePreorders,
    /** The catalog's product changes: a pre-order waits for its prelaunched products; the launch releases it. */
    async productChanged(c: { productReference: string; status?: { from: string; to: string } }): Promise<void> {
      if (c.status?.from === 'prelaunched' && (c.status.to === 'launched' || c.status.to === 'sunsetted'))
        await changes.releasePreorders(c.productReference);
    },
    createReplacementOrder: changes.createReplacementOrder,
    ...moduleReads,
    /**
     * Ships every open quantity of the (locked) orders with the shipment, in the caller's
     * transaction (mark-shipped.ts).
     */
    markShipped: (tx: Executor, orders: OrderRow[], shipment: Shipped, store: StoreRecord, at: Date) =>
      markShipped({ ...deps, touch }, tx, orders, shipment, store, at),

    normalizeAddress,
    isOpen,
    repriceShipping,
  };
  return service;
}

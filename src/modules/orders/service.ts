import type { Static } from 'typebox';
import type { Executor } from '../../platform/db/index.ts';
import { conflict, mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { StoreFacts } from '../organization/service.ts';
import { normalizeAddress } from '../shipping/address.ts';
import type { OrdersDeps } from './deps.ts';
import { orderIntake } from './intake.ts';
import { quote } from './quote.ts';
import type { OrderFacts } from './facts.ts';
import { ordersRepo as repo } from './repo.ts';
import { callbackAttempt, callbackJobs, orderActivity } from './activity.ts';
import type { CreateOrderBody, QuoteBody } from './schemas.ts';
import type { Shipped } from './combined-shipping.ts';
import { isOpen, repriceShipping } from './view.ts';
import { orderWriter } from './writer.ts';
import { orderActions } from './order-actions.ts';
import { createOrder } from './create-order.ts';
import { moduleReads } from './module-reads.ts';
import { orderReads } from './order-reads.ts';
import { markShipped } from './mark-shipped.ts';

export type OrdersService = ReturnType<typeof ordersService>;
export type { OrderFacts, OrderlineFacts } from './facts.ts';
export type { CallbackAttempt, CallbackJob, OrderActivity, OrdersOnDay } from './activity.ts';
export type { ProductionListener } from './order-actions.ts';

/**
 * Orders: creating one (create-order.ts), reading them (order-reads.ts), changing them
 * (order-actions.ts) and shipping them (mark-shipped.ts), composed with what other modules ask.
 */
export function ordersService(deps: OrdersDeps) {
  const { db, organization } = deps;
  const intake = orderIntake(deps);
  const { bodyStore, writable } = intake;

  const reads = orderReads(deps, bodyStore);
  const { touch, findOrder, findAddress } = reads;

  const writer = orderWriter({ db, events: deps.events, organization, catalog: deps.catalog });

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

    ...orderActions(deps, { touch, writable }),
    /** Shipping options and prices of a prospective order (POST /quote); nothing is stored. */
    quote: (orgId: string, body: Static<typeof QuoteBody>) => quote(intake, orgId, body),
    ...moduleReads,
    /**
     * Ships every open quantity of the (locked) orders with the shipment, in the caller's
     * transaction (mark-shipped.ts).
     */
    markShipped: (tx: Executor, orders: OrderFacts[], shipment: Shipped, store: StoreFacts, at: Date) =>
      markShipped({ ...deps, touch }, tx, orders, shipment, store, at),

    normalizeAddress,
    isOpen,
    repriceShipping,
  };
  return service;
}

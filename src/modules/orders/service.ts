import type { Static } from 'typebox';
import { type Executor, PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from '../../platform/db/index.ts';
import { ApiError, badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { ReadCache } from '../../platform/cache.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { StoreRecord } from '../organization/service.ts';
import { type Address, isPackstation, normalizeAddress, validateAddress } from '../shipping/address.ts';
import { type ShippingLevel, parcelOf, shippingOptions } from '../shipping/data.ts';
import { enqueueOrderCallback } from './callback.ts';
import type { OrdersDeps } from './deps.ts';
import { orderIntake } from './intake.ts';
import { quote } from './quote.ts';
import {
  type CallbackAttemptRow,
  type OrderlineRow,
  type OrderRow,
  type OrderStatus,
  ordersRepo as repo,
} from './repo.ts';
import type { CreateOrderBody, ListOrdersQuery, QuoteBody } from './schemas.ts';
import { type Shipped, chargeCombinedShipment } from './combined-shipping.ts';
import { addressView, isOpen, orderViewIn, repriceShipping, toOrder } from './view.ts';
import { ORDER_TOPIC, type OperatorCancelSettle, orderChanges } from './changes.ts';
import { orderWriter } from './writer.ts';

export type OrdersService = ReturnType<typeof ordersService>;
/** An order and its lines as other modules get them from this service (shipments, claims). */
export type OrderRecord = OrderRow;
export type OrderlineRecord = OrderlineRow;
/** One attempt of the store callback (the dashboard's order timeline). */
export type CallbackAttempt = CallbackAttemptRow;
/** Called in the transaction that puts an order into production, with the locked order row. */
export type ProductionListener = (tx: Executor, order: OrderRow) => Promise<void>;

export function ordersService(deps: OrdersDeps) {
  const { db, clock, cursors, organization } = deps;
  const intake = orderIntake(deps);
  const { bodyStore, writable } = intake;

  // A store's code never changes once created (updateStore cannot set it), so the code of a store
  // is read once per process instead of once per order read.
  const knownCodes = new Map<string, string>();
  async function storeCodes(orgId: string, rows: OrderRow[]): Promise<Map<string, string>> {
    const codes = new Map<string, string>();
    for (const id of new Set(rows.map((r) => r.store_id))) {
      let code = knownCodes.get(id);
      if (code === undefined) {
        code = (await organization.storeRowIn(db, orgId, id))!.code;
        if (knownCodes.size >= 10_000) knownCodes.clear();
        knownCodes.set(id, code);
      }
      codes.set(id, code);
    }
    return codes;
  }

  // Order views by id, dropped on every node when any statement changes the order (the triggers
  // of migration 0019 announce `order:<id>` on commit), and held by this node's own changes from
  // their first statement on, so a writer's client always reads its own write.
  const views = new ReadCache<{ order: OrderRow; lines: OrderlineRow[] }>({ maxEntries: 5000, maxAgeMs: 10 * 60_000 });
  deps.changes.on(ORDER_TOPIC, (id) => (id ? views.delete(id) : views.clear()));
  const touch = (orderId: string) => views.hold(orderId);

  async function findOrder(orgId: string, ref: string) {
    if (!isReference('Order', ref)) return null;
    const found = await views.getOne(ref, () => repo.orderWithLines(db, orgId, ref));
    // Cached for whoever asked first: another organization's order is not found here.
    if (!found || found.order.organization_id !== orgId) return null;
    const codes = await storeCodes(orgId, [found.order]);
    return toOrder(found.order, found.lines, codes.get(found.order.store_id)!);
  }

  async function findAddress(orgId: string, ref: string) {
    const a = isReference('Address', ref) ? await repo.resolvableAddress(db, orgId, ref) : null;
    return a ? addressView(a.id, a.fields) : null;
  }

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
    /** `viaStoreCode`: the integrator code of the key that creates the order, if any. */
    async create(
      orgId: string,
      body: Static<typeof CreateOrderBody>,
      viaStoreCode: string | null = null,
      /** An order taken from the store's upstream platform (storefronts module): the API's store rule does not apply. */
      upstream: { id: string; name: string } | null = null,
    ): Promise<{ reference: string }> {
      const input = body.order;
      const f = 'body.order';
      const store = await intake.store(orgId, input, f, upstream !== null);
      let address: Address | null = null;
      if (input.shippingKind === 'dropship') address = validateAddress(input.dropshipAddress!, `${f}.dropshipAddress`);
      else if (!store.combined_address)
        throw badRequest(`${f}.shippingKind: store ${store.code} has no combined address; use dropship`);

      const products = await intake.checkProducts(orgId, input.orderlines, `${f}.orderlines`);
      const images = await deps.images.imagesForOrganization(
        orgId,
        input.orderlines.flatMap((l) => (l.imageReference === undefined ? [] : [l.imageReference])),
      );
      for (const [i, l] of input.orderlines.entries()) {
        const field = `${f}.orderlines[${i}].imageReference`;
        if (products[i].printable && l.imageReference === undefined)
          throw new ApiError('missing_image_reference', `${field} is required: ${products[i].name} is a print product`);
        if (!products[i].printable && l.imageReference !== undefined)
          throw badRequest(`${field} must be left out: ${products[i].name} is not a print product`);
        if (l.imageReference !== undefined && !images.has(l.imageReference))
          throw badRequest(`${field} is not an image of this organization`);
      }
      let brandId = store.default_brand_id;
      if (input.brandReference !== undefined) {
        const brand = isReference('Brand', input.brandReference)
          ? await organization.findBrand(orgId, input.brandReference)
          : null;
        if (!brand) throw badRequest(`${f}.brandReference is not a brand of this organization`);
        brandId = brand.id;
      }
      let packagingId: string | null = null;
      if (input.preferredPackagingReference !== undefined) {
        const p = isReference('Packaging', input.preferredPackagingReference)
          ? await deps.catalog.packagingForOrganization(orgId, input.preferredPackagingReference)
          : null;
        if (!p) throw badRequest(`${f}.preferredPackagingReference is not a packaging available to this organization`);
        packagingId = p.reference;
      }

      const id = newReference('Order');
      const lines: OrderlineRow[] = input.orderlines.map((l, i) => ({
        order_id: id,
        line_index: i + 1,
        product_id: l.productReference,
        image_id: l.imageReference ?? null,
        quantity: l.quantity,
        canceled_quantity: 0,
        shipped_quantity: 0,
        annotations: (l.annotations ?? []).map((a) => ({ key: a.key, value: a.value })),
        unit_price_cents: products[i].priceCents,
        unit_weight_grams: products[i].weightGrams,
        awaiting_launch: products[i].status === 'prelaunched',
      }));
      let level: ShippingLevel | null = null;
      let shippingCents = 0;
      if (address) {
        const chosen = shippingOptions(
          parcelOf(lines, address.countryCode!, isPackstation(address)),
          input.dropshipMinimalShippingLevel ?? 'basic',
        )[0];
        if (!chosen)
          throw badRequest(`${f}.dropshipAddress: no shipping level can carry this order to ${address.countryCode}`);
        level = chosen.level;
        shippingCents = chosen.price;
      }

      const now = clock.now();
      const addressRow = address
        ? { id: newReference('Address'), organization_id: orgId, fields: address, created_at: now }
        : undefined;
      try {
        await writer.write({
          order: {
            id,
            organization_id: orgId,
            store_id: store.id,
            shipping_kind: input.shippingKind,
            custom_identifier: input.customIdentifier ?? null,
            dropship_address_id: addressRow?.id ?? null,
            minimal_shipping_level:
              input.shippingKind === 'dropship' ? (input.dropshipMinimalShippingLevel ?? 'basic') : null,
            shipping_level: level,
            brand_id: brandId,
            packaging_id: packagingId,
            status: lines.some((l) => l.awaiting_launch) ? 'preorder' : 'pending',
            status_modified_at: now,
            shipping_cents: shippingCents,
            shipment_id: null,
            replacement_for_claim_id: null,
            replaces_order_id: null,
            via_store_code: viaStoreCode,
            upstream_order_id: upstream?.id ?? null,
            upstream_order_name: upstream?.name ?? null,
            created_at: now,
          },
          lines,
          address: addressRow,
          storeCode: store.code,
        });
      } catch (err) {
        // A customIdentifier already in use (also by a create racing this one): the unique index
        // decides, and the order it names is looked up only then. Its order number stays unused.
        if (
          pgErrorCode(err) === PG_UNIQUE_VIOLATION &&
          pgConstraint(err) !== 'orders_store_number' &&
          input.customIdentifier !== undefined
        ) {
          await service.assertIdentifierFree(orgId, input.customIdentifier);
        }
        throw err;
      }
      return { reference: id };
    },

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
    callbackAttempts: (orgId: string, ref: string, limit = 100) =>
      isReference('Order', ref) ? repo.callbackAttempts(db, orgId, ref, limit) : Promise.resolve([]),
    /** Callback attempts older than `before` (the hourly maintenance job). */
    purgeCallbackAttempts: (before: Date) => repo.purgeCallbackAttempts(db, before),

    async list(orgId: string, q: Static<typeof ListOrdersQuery>) {
      const filter: { storeId?: string; status?: OrderStatus; createdAfter?: Date; createdBefore?: Date } = {};
      if (q.storeReference !== undefined)
        filter.storeId = (await bodyStore(orgId, q.storeReference, 'query.storeReference')).id;
      if (q.status !== undefined) filter.status = q.status as OrderStatus;
      if (q.createdAfter !== undefined) filter.createdAfter = new Date(q.createdAfter);
      if (q.createdBefore !== undefined) filter.createdBefore = new Date(q.createdBefore);
      return listPage(cursors, q as PageRequest, {
        plural: 'orders',
        load: (ks) => repo.orders(db, orgId, ks, filter),
        async items(rows) {
          const lines = await repo.lines(
            db,
            rows.map((r) => r.id),
          );
          const codes = await storeCodes(orgId, rows);
          return rows.map((o) =>
            toOrder(
              o,
              lines.filter((l) => l.order_id === o.id),
              codes.get(o.store_id)!,
            ),
          );
        },
      });
    },

    async lookupByCustomIdentifier(orgId: string, customIdentifier: string) {
      const o = mustFind(
        await repo.orderByCustomIdentifier(db, orgId, customIdentifier),
        `Order with customIdentifier "${customIdentifier}"`,
      );
      return { orderReference: o.id };
    },

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
    /** Test helper and operator: `pending`/`preorder` → `in_production`. `orgId` null: any organization. */
    async startProduction(orgId: string | null, ref: string) {
      await changes.startProduction(mustFind(await orderRow(orgId, ref), 'Order', ref));
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
    /**
     * Ships every open quantity of the (locked) orders with the shipment, in the caller's
     * transaction: each order's `order.shipped` event and its order-updated callback.
     */
    async markShipped(tx: Executor, orders: OrderRow[], shipment: Shipped, store: StoreRecord, at: Date) {
      const shipmentId = shipment.id;
      const lines = await repo.lines(
        tx,
        orders.map((o) => o.id),
      );
      await chargeCombinedShipment(deps, tx, { shipment, store, orders, lines });
      await deps.catalog.shipStock(
        tx,
        orders.map((o) => ({
          orderId: o.id,
          lines: lines
            .filter((l) => l.order_id === o.id)
            .map((l) => ({ productId: l.product_id, quantity: l.quantity - l.canceled_quantity - l.shipped_quantity })),
        })),
      );
      for (const o of orders) {
        touch(o.id);
        await repo.markShipped(tx, o.id, shipmentId, at);
        await deps.events.record(tx, {
          organizationId: o.organization_id,
          type: 'order.shipped',
          data: { order: await orderViewIn(tx, o.organization_id, o.id, store.code) },
        });
        await enqueueOrderCallback(tx, clock, o, store);
      }
    },

    normalizeAddress,
    isOpen,
    repriceShipping,
  };
  return service;
}

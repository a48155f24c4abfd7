import type { Static } from 'typebox';
import type { Clock } from '../../platform/clock.ts';
import { type Db, type Executor, PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from '../../platform/db/index.ts';
import { ApiError, badRequest, conflict, forbidden, notFound } from '../../platform/errors.ts';
import { type Cursors, type PageRequest, keyset, pageOf } from '../../platform/http/pagination.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { StoreRow } from '../organization/repo.ts';
import { type Address, isPackstation, normalizeAddress, validateAddress } from '../shipping/address.ts';
import { type ShippingLevel, shippingOptions } from '../shipping/data.ts';
import { type OrderlineRow, type OrderRow, type OrderStatus, ordersRepo as repo } from './repo.ts';
import type { CreateOrderBody, ListOrdersQuery } from './schemas.ts';
import {
  type CatalogPort,
  type EventsPort,
  type ImagesPort,
  addressView,
  isOpen,
  orderViewIn,
  parcelOf,
  repriceShipping,
  toOrder,
} from './view.ts';
import { orderChanges } from './changes.ts';
import { orderWriter } from './writer.ts';

export type OrdersService = ReturnType<typeof ordersService>;

export interface OrdersDeps {
  db: Db;
  clock: Clock;
  cursors: Cursors;
  organization: OrganizationService;
  catalog: CatalogPort;
  images: ImagesPort;
  events: EventsPort;
}

/** Product stages that cannot be ordered (spec: announced, ended, archived; invisible ones are absent). */
const NOT_ORDERABLE = new Set(['announced', 'ended', 'archived']);

export function ordersService(deps: OrdersDeps) {
  const { db, clock, cursors, organization } = deps;

  /** A store named in a body: unknown or foreign is a 400 naming the field, not a 404. */
  async function bodyStore(orgId: string, ref: string, field: string): Promise<StoreRow> {
    const row = isReference('Store', ref) ? await organization.cachedStoreRow(orgId, ref) : null;
    if (!row) throw badRequest(`${field} is not a store of this organization`);
    return row;
  }
  const writable = (store: StoreRow) => {
    if (store.integration !== 'api') {
      throw forbidden(
        'store_not_writable_via_api',
        `Store ${store.code} is connected through ${store.integration}; create and change its orders there`,
      );
    }
  };

  /** Store, product and country checks shared by order creation and the quote. */
  async function checkProducts(orgId: string, lines: Array<{ productReference: string }>, field: string) {
    const refs = [...new Set(lines.map((l) => l.productReference).filter((r) => isReference('Product', r)))];
    const found = refs.length ? await deps.catalog.orderableProducts(orgId, refs) : new Map();
    return lines.map((l, i) => {
      const p = found.get(l.productReference);
      if (!p)
        throw new ApiError(
          400,
          'product_not_orderable',
          `${field}[${i}].productReference ${l.productReference} is not a product of the catalog`,
        );
      if (NOT_ORDERABLE.has(p.status))
        throw new ApiError(
          400,
          'product_not_orderable',
          `${field}[${i}].productReference ${l.productReference} is ${p.status} and cannot be ordered`,
        );
      return p;
    });
  }

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

  async function mustOrder(orgId: string, ref: string): Promise<OrderRow> {
    const row = isReference('Order', ref) ? await repo.order(db, orgId, ref) : null;
    if (!row) throw notFound('Order', ref);
    return row;
  }

  const writer = orderWriter({ db, events: deps.events, organization });
  const changes = orderChanges({
    ...deps,
    writable,
    storeOf: (ex, o) => organization.storeRowIn(ex, o.organization_id, o.store_id) as Promise<StoreRow>,
  });

  const service = {
    checkProducts,
    bodyStore,
    writable,

    async create(orgId: string, body: Static<typeof CreateOrderBody>): Promise<{ reference: string }> {
      const input = body.order;
      const f = 'body.order';
      if (input.shippingKind === 'combined') {
        for (const k of ['dropshipAddress', 'dropshipMinimalShippingLevel'] as const) {
          if (input[k] !== undefined)
            throw badRequest(
              `${f}.${k} is not accepted for combined orders: they ship to the store's combined address`,
            );
        }
      } else if (input.dropshipAddress === undefined) {
        throw new ApiError(400, 'missing_address', `${f}.dropshipAddress is required for dropship orders`);
      }
      const store = await bodyStore(orgId, input.storeReference, `${f}.storeReference`);
      writable(store);
      let address: Address | null = null;
      if (input.shippingKind === 'dropship') address = validateAddress(input.dropshipAddress!, `${f}.dropshipAddress`);
      else if (!store.combined_address)
        throw badRequest(`${f}.shippingKind: store ${store.code} has no combined address; use dropship`);

      const products = await checkProducts(orgId, input.orderlines, `${f}.orderlines`);
      for (const [i, l] of input.orderlines.entries()) {
        const field = `${f}.orderlines[${i}].imageReference`;
        if (products[i].printable && l.imageReference === undefined)
          throw new ApiError(
            400,
            'missing_image_reference',
            `${field} is required: ${products[i].name} is a print product`,
          );
        if (!products[i].printable && l.imageReference !== undefined)
          throw badRequest(`${field} must be left out: ${products[i].name} is not a print product`);
        if (l.imageReference !== undefined) {
          const image = isReference('Image', l.imageReference)
            ? await deps.images.imageForOrganization(orgId, l.imageReference)
            : null;
          if (!image) throw badRequest(`${field} is not an image of this organization`);
        }
      }
      let brandId = store.default_brand_id;
      if (input.brandReference !== undefined) {
        const brand = isReference('Brand', input.brandReference)
          ? await organization.brandRow(orgId, input.brandReference).catch(() => null)
          : null;
        if (!brand) throw badRequest(`${f}.brandReference is not a brand of this organization`);
        brandId = brand.id;
      }
      let packagingId: string | null = null;
      if (input.preferredPackagingReference !== undefined) {
        const lookup = deps.catalog.packagingForOrganization;
        const p =
          lookup && isReference('Packaging', input.preferredPackagingReference)
            ? await lookup(orgId, input.preferredPackagingReference)
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
            via_store_code: null,
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

    async get(orgId: string, ref: string) {
      const found = isReference('Order', ref) ? await repo.orderWithLines(db, orgId, ref) : null;
      if (!found) throw notFound('Order', ref);
      const codes = await storeCodes(orgId, [found.order]);
      return toOrder(found.order, found.lines, codes.get(found.order.store_id)!);
    },

    async list(orgId: string, q: Static<typeof ListOrdersQuery>) {
      const filter: { storeId?: string; status?: OrderStatus; createdAfter?: Date; createdBefore?: Date } = {};
      if (q.storeReference !== undefined)
        filter.storeId = (await bodyStore(orgId, q.storeReference, 'query.storeReference')).id;
      if (q.status !== undefined) filter.status = q.status as OrderStatus;
      if (q.createdAfter !== undefined) filter.createdAfter = new Date(q.createdAfter);
      if (q.createdBefore !== undefined) filter.createdBefore = new Date(q.createdBefore);
      const ks = keyset(cursors, 'orders', q as PageRequest);
      const rows = await repo.orders(db, orgId, ks, filter);
      const lines = await repo.lines(
        db,
        rows.map((r) => r.id),
      );
      const codes = await storeCodes(orgId, rows);
      const p = pageOf(cursors, 'orders', ks, rows, (o) =>
        toOrder(
          o,
          lines.filter((l) => l.order_id === o.id),
          codes.get(o.store_id)!,
        ),
      );
      return { orders: p.items, nextCursor: p.nextCursor };
    },

    async lookupByCustomIdentifier(orgId: string, customIdentifier: string) {
      const o = await repo.orderByCustomIdentifier(db, orgId, customIdentifier);
      if (!o) throw notFound(`Order with customIdentifier "${customIdentifier}"`);
      return { orderReference: o.id };
    },

    async address(orgId: string, ref: string) {
      const a = isReference('Address', ref) ? await repo.resolvableAddress(db, orgId, ref) : null;
      if (!a) throw notFound('Address', ref);
      return addressView(a.id, a.fields);
    },

    async cancel(orgId: string, ref: string, wanted: Array<{ index: number; canceledQuantity: number }>) {
      await changes.cancel(await mustOrder(orgId, ref), wanted);
    },
    async changeAddress(orgId: string, ref: string, input: Record<string, unknown>) {
      await changes.changeAddress(orgId, await mustOrder(orgId, ref), input);
    },
    /** Test helper and operator: `pending`/`preorder` → `in_production`. `orgId` null: any organization. */
    async startProduction(orgId: string | null, ref: string) {
      const o = isReference('Order', ref) ? await repo.order(db, orgId, ref) : null;
      if (!o) throw notFound('Order', ref);
      await changes.startProduction(o);
    },
    releasePreorders: changes.releasePreorders,
    createReplacementOrder: changes.createReplacementOrder,
    /** For other modules: the order row, organization-scoped (null when absent or foreign). */
    orderRow: (ex: Executor, orgId: string, id: string) =>
      isReference('Order', id) ? repo.order(ex, orgId, id) : Promise.resolve(null),
    orderlines: (ex: Executor, orderId: string) => repo.lines(ex, [orderId]),
    orderView: orderViewIn,
    /** The replacement already created for an order, if any (claims: one replacement per order). */
    replacementOf: (ex: Executor, orderId: string) => repo.replacementOf(ex, orderId),
    normalizeAddress,
    isOpen,
    repriceShipping,
  };
  return service;
}

import type { Executor } from '../../platform/db/index.ts';
import { ApiError, badRequest, conflict, mustFind, notFound } from '../../platform/errors.ts';
import { isReference, newReference, randomId } from '../../platform/ids.ts';
import type { OrderRecord } from '../orders/service.ts';
import type { Address } from '../shipping/address.ts';
import type { ShippingLevel } from '../shipping/data.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { loadShippingMethods } from '../carriers/sendcloud/methods.ts';
import { parcelStatusOf, verifySendcloudSignature } from '../carriers/sendcloud/webhook.ts';
import { carrierTracking } from './carrier-tracking.ts';
import { ANNOUNCE_JOB, announceKey, announcements } from './announce.ts';
import type { ShipmentsDeps } from './deps.ts';
import { type ShipmentRow, shipmentsRepo as repo } from './repo.ts';
import {
  type CarrierEventIn,
  type TrackingEventIn,
  currentStatus,
  trackingEventView,
  trackingEvents,
} from './tracking-events.ts';

export type ShipmentsService = ReturnType<typeof shipmentsService>;
/** A shipment as other modules get it from this service (claims). */
export type ShipmentRecord = ShipmentRow;

export interface ShipInput {
  orderReferences: string[];
  shippedAt?: string;
  carrier?: string;
  trackingNumber?: string;
}

/** Called in the transaction that creates a shipment (shipping labels, packing slips). */
export type ShippedListener = (tx: Executor, shipment: ShipmentRow) => Promise<void>;

const TOKEN = /^[0-9a-hjkmnp-tv-z]{32}$/;
const tracked = (level: ShippingLevel) => level !== 'basic';

export function shipmentsService(deps: ShipmentsDeps) {
  const { db, clock, config, organization, events } = deps;

  const trackingUrl = (token: string) => `${config.publicBaseUrl}/tracking/${token}`;

  async function view(ex: Executor, s: ShipmentRow) {
    const [orders, tracking] = await Promise.all([
      deps.orders.ordersOfShipment(ex, s.id),
      repo.trackingEvents(ex, s.id),
    ]);
    return {
      reference: s.id,
      shippingKind: s.shipping_kind,
      level: s.level,
      shipped: s.shipped_at.toISOString(),
      addressReference: s.address_id,
      orders: orders.map((o) => ({ reference: o.id })),
      ...(tracked(s.level)
        ? {
            carrier: s.carrier,
            trackingNumber: s.tracking_number,
            trackingUrl: s.tracking_token ? trackingUrl(s.tracking_token) : null,
          }
        : {}),
      trackingStatus: currentStatus(tracking),
      trackingEvents: tracking.map(trackingEventView),
    };
  }

  const tracking = trackingEvents({ db, clock, events, view });
  const carrierIn = carrierTracking({
    db,
    clock,
    log: deps.log ?? { warn: () => {} },
    carrier: deps.carrier,
    ingest: (list) => tracking.ingest(list),
    lostAfterDays: config.parcelLostAfterDays,
  });
  const methods = loadShippingMethods();
  const announce = announcements({
    ...deps,
    blobs: deps.blobs,
    returnAddress: config.returnAddress,
    customs: { ...methods.customs, packagingGrams: methods.packagingGrams },
    view,
  });
  const shippedListeners: ShippedListener[] = [];

  const findRow = async (orgId: string, ref: string, ex: Executor = db) =>
    isReference('Shipment', ref) ? repo.shipment(ex, orgId, ref) : null;

  /** Orders named in a request body: unknown or foreign ones are a 400 naming the entry. */
  async function namedOrders(orgId: string | null, refs: string[], field: string): Promise<OrderRecord[]> {
    const rows = await deps.orders.ordersByIds(
      db,
      orgId,
      refs.filter((r) => isReference('Order', r)),
    );
    const out: OrderRecord[] = [];
    for (const [i, ref] of refs.entries()) {
      const row = rows.find((r) => r.id === ref);
      if (!row) throw badRequest(`${field}[${i}] is not an order of this organization`);
      if (out.includes(row)) throw badRequest(`${field}[${i}] lists ${ref} twice`);
      out.push(row);
    }
    if (new Set(out.map((o) => o.organization_id)).size > 1)
      throw badRequest(`${field} names orders of different organizations`);
    return out;
  }

  return {
    announce,
    /** The poll for quiet parcels and the lost-parcel check (hourly maintenance). */
    checkTracking: () => carrierIn.check(),
    /**
     * A Sendcloud webhook, verified on its raw body: a forged one is a 401 and nothing is stored;
     * a status for a parcel no shipment knows is acknowledged and ignored (logged once).
     */
    async receiveSendcloudWebhook(raw: string, signature: string | undefined) {
      const key = config.sendcloud?.webhookKey;
      if (deps.carrier.kind !== 'sendcloud' || !key) throw notFound('Sendcloud integration');
      if (!verifySendcloudSignature(raw, signature, key))
        throw new ApiError('unauthorized', 'Sendcloud-Signature does not match the body');
      let payload: unknown;
      try {
        payload = JSON.parse(raw);
      } catch {
        throw badRequest('the body is not JSON');
      }
      const status = parcelStatusOf(payload);
      return status ? carrierIn.receive([status]) : { stored: 0, ignored: 1 };
    },
    async get(orgId: string, ref: string) {
      return view(db, mustFind(await findRow(orgId, ref), 'Shipment', ref));
    },
    /** The shipment as GET shows it, or null when it does not exist or belongs to another organization. */
    async find(orgId: string, ref: string) {
      const s = await findRow(orgId, ref);
      return s ? view(db, s) : null;
    },

    /**
     * Ships every open quantity of the orders as one shipment: one dropship order, or combined
     * orders of one store. `orgId` null: the operator, for any organization.
     */
    async ship(orgId: string | null, input: ShipInput, field = 'body.shipment'): Promise<{ reference: string }> {
      const orders = await namedOrders(orgId, input.orderReferences, `${field}.orderReferences`);
      const first = orders[0];
      if (first.shipping_kind === 'dropship' && orders.length > 1)
        throw badRequest(`${field}.orderReferences: a dropship order ships alone, one order per shipment`);
      if (orders.some((o) => o.shipping_kind !== first.shipping_kind))
        throw badRequest(`${field}.orderReferences mixes dropship and combined orders`);
      if (orders.some((o) => o.store_id !== first.store_id))
        throw badRequest(
          `${field}.orderReferences: combined orders are consolidated per store; these belong to different stores`,
        );
      const now = clock.now();
      const shippedAt = input.shippedAt ? new Date(input.shippedAt) : now;
      if (shippedAt.getTime() > now.getTime()) throw badRequest(`${field}.shippedAt lies in the future`);
      const level: ShippingLevel = first.shipping_kind === 'dropship' ? (first.shipping_level ?? 'tracked') : 'tracked';
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
      const orgOf = first.organization_id;
      const id = newReference('Shipment');
      await db.tx(async (tx) => {
        const locked = await deps.orders.ordersByIds(
          tx,
          orgOf,
          orders.map((o) => o.id),
          true,
        );
        for (const o of locked) {
          if (o.status !== 'in_production')
            throw conflict(
              'order_not_in_production',
              `Order ${o.id} is ${o.status}; only orders in production can ship`,
            );
        }
        const store = (await organization.storeRowIn(tx, orgOf, first.store_id))!;
        let addressId = first.dropship_address_id;
        if (first.shipping_kind === 'combined') {
          // The shipment keeps the address it left with, even if the store's combined address changes.
          if (!store.combined_address)
            throw conflict('store_has_no_combined_address', `Store ${store.code} has no combined address`);
          addressId = await deps.orders.createAddress(tx, orgOf, store.combined_address as Address, now);
        }
        await repo.insert(tx, {
          id,
          organization_id: orgOf,
          store_id: first.store_id,
          shipping_kind: first.shipping_kind,
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
        await deps.orders.markShipped(tx, locked, id, store, now);
        const created = (await repo.shipment(tx, orgOf, id))!;
        for (const l of shippedListeners) await l(tx, created);
        await events.record(tx, {
          organizationId: orgOf,
          type: 'shipment.created',
          data: { shipment: await view(tx, created) },
        });
      });
      return { reference: id };
    },

    /** Work that starts when a shipment is created, in its transaction (a module above this one: labels). */
    onShipped(listener: ShippedListener): void {
      shippedListeners.push(listener);
    },

    /** Test helper: a scripted journey of tracking events; answers the shipment as it is now. */
    async scriptTracking(orgId: string, ref: string, list: TrackingEventIn[], field: string) {
      const s = mustFind(await findRow(orgId, ref), 'Shipment', ref);
      await tracking.script(s, list, field);
      return view(db, s);
    },
    /** Operator: a carrier feed's batch, judged per event. */
    ingestTracking: (list: CarrierEventIn[]) => tracking.ingest(list),

    /** The public tracking page's facts; null for an unknown token. */
    async trackingPage(token: string) {
      if (!TOKEN.test(token)) return null;
      const s = await repo.byTrackingToken(db, token);
      if (!s) return null;
      const orders = await deps.orders.ordersOfShipment(db, s.id);
      const store = await organization.storeRowIn(db, s.organization_id, s.store_id);
      const brandId = orders.find((o) => o.brand_id)?.brand_id ?? store?.default_brand_id ?? null;
      const brand = brandId ? await organization.findBrand(s.organization_id, brandId) : null;
      const address = (await deps.orders.addressFields(db, s.address_id)) ?? {};
      const events = await repo.trackingEvents(db, s.id);
      return { shipment: s, brand, city: address.city ?? '', countryCode: address.countryCode ?? '', events };
    },

    /** For claims: the shipment row (organization-scoped), its orders and the address it left with. */
    shipmentRow: (ex: Executor, orgId: string, id: string) => findRow(orgId, id, ex),
    ordersOfShipment: (ex: Executor, shipmentId: string) => deps.orders.ordersOfShipment(ex, shipmentId),
    async shipmentAddress(ex: Executor, s: ShipmentRow): Promise<Address> {
      return (await deps.orders.addressFields(ex, s.address_id)) ?? {};
    },
  };
}

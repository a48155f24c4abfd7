import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db, Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, notFound } from '../../platform/errors.ts';
import { isReference, newReference, randomId } from '../../platform/ids.ts';
import type { OrganizationService } from '../organization/service.ts';
import { type OrderRow, ordersRepo } from '../orders/repo.ts';
import type { EventsPort } from '../orders/view.ts';
import { orderViewIn } from '../orders/view.ts';
import type { Address } from '../shipping/address.ts';
import type { ShippingLevel } from '../shipping/data.ts';
import { enqueueOrderCallback } from './callback.ts';
import { type ShipmentRow, shipmentsRepo as repo } from './repo.ts';
import {
  type CarrierEventIn,
  type TrackingEventIn,
  currentStatus,
  trackingEventView,
  trackingEvents,
} from './tracking-events.ts';

export type ShipmentsService = ReturnType<typeof shipmentsService>;

export interface ShipInput {
  orderReferences: string[];
  shippedAt?: string;
  carrier?: string;
  trackingNumber?: string;
}

const TOKEN = /^[0-9a-hjkmnp-tv-z]{32}$/;
const tracked = (level: ShippingLevel) => level !== 'basic';

/** A carrier-style number for test shipments: the operator gives the real one in production. */
const testTrackingNumber = () => `TEST${Array.from(randomId(14), (c) => (c.charCodeAt(0) % 10).toString()).join('')}`;

export function shipmentsService(deps: {
  db: Db;
  clock: Clock;
  config: Readonly<Config>;
  organization: OrganizationService;
  events: EventsPort;
}) {
  const { db, clock, config, organization, events } = deps;

  const trackingUrl = (token: string) => `${config.publicBaseUrl}/tracking/${token}`;

  async function view(ex: Executor, s: ShipmentRow) {
    const [orders, tracking] = await Promise.all([
      ordersRepo.ordersOfShipment(ex, s.id),
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

  /** Orders named in a request body: unknown or foreign ones are a 400 naming the entry. */
  async function namedOrders(orgId: string | null, refs: string[], field: string): Promise<OrderRow[]> {
    const rows = await ordersRepo.ordersByIds(
      db,
      orgId,
      refs.filter((r) => isReference('Order', r)),
    );
    const out: OrderRow[] = [];
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
    async get(orgId: string, ref: string) {
      const s = isReference('Shipment', ref) ? await repo.shipment(db, orgId, ref) : null;
      if (!s) throw notFound('Shipment', ref);
      return view(db, s);
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
      const orgOf = first.organization_id;
      const id = newReference('Shipment');
      await db.tx(async (tx) => {
        const locked = await ordersRepo.ordersByIds(
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
          addressId = newReference('Address');
          await ordersRepo.insertAddress(tx, {
            id: addressId,
            organization_id: orgOf,
            fields: store.combined_address as Address,
            created_at: now,
          });
        }
        await repo.insert(tx, {
          id,
          organization_id: orgOf,
          store_id: first.store_id,
          shipping_kind: first.shipping_kind,
          level,
          address_id: addressId!,
          carrier: tracked(level) ? (input.carrier ?? (level === 'express' ? 'DHL Express' : 'DHL')) : null,
          tracking_number: tracked(level) ? (input.trackingNumber ?? testTrackingNumber()) : null,
          tracking_token: tracked(level) ? randomId(32) : null,
          shipped_at: shippedAt,
          created_at: now,
        });
        for (const o of locked) {
          await ordersRepo.markShipped(tx, o.id, id, now);
          await events.record(tx, {
            organizationId: orgOf,
            type: 'order.shipped',
            data: { order: await orderViewIn(tx, orgOf, o.id, store.code) },
          });
          await enqueueOrderCallback(tx, clock, o, store);
        }
        await events.record(tx, {
          organizationId: orgOf,
          type: 'shipment.created',
          data: { shipment: await view(tx, (await repo.shipment(tx, orgOf, id))!) },
        });
      });
      return { reference: id };
    },

    /** Test helper: a scripted journey of tracking events; answers the shipment as it is now. */
    async scriptTracking(orgId: string, ref: string, list: TrackingEventIn[], field: string) {
      const s = isReference('Shipment', ref) ? await repo.shipment(db, orgId, ref) : null;
      if (!s) throw notFound('Shipment', ref);
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
      const orders = await ordersRepo.ordersOfShipment(db, s.id);
      const store = await organization.storeRowIn(db, s.organization_id, s.store_id);
      const brandId = orders.find((o) => o.brand_id)?.brand_id ?? store?.default_brand_id ?? null;
      const brand = brandId ? await organization.brandRow(s.organization_id, brandId).catch(() => null) : null;
      const address = (await ordersRepo.address(db, s.address_id))?.fields ?? {};
      const events = await repo.trackingEvents(db, s.id);
      return { shipment: s, brand, city: address.city ?? '', countryCode: address.countryCode ?? '', events };
    },

    /** For claims: the shipment row (organization-scoped), its orders and the address it left with. */
    shipmentRow: (ex: Executor, orgId: string, id: string) =>
      isReference('Shipment', id) ? repo.shipment(ex, orgId, id) : Promise.resolve(null),
    ordersOfShipment: (ex: Executor, shipmentId: string) => ordersRepo.ordersOfShipment(ex, shipmentId),
    async shipmentAddress(ex: Executor, s: ShipmentRow): Promise<Address> {
      return (await ordersRepo.address(ex, s.address_id))?.fields ?? {};
    },
  };
}

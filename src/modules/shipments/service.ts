import type { Executor } from '../../platform/db/index.ts';
import { mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { Address } from '../shipping/address.ts';
import { loadShippingMethods } from '../carriers/sendcloud/methods.ts';
import { carrierTracking } from './carrier-tracking.ts';
import { announcements } from './announce.ts';
import type { ShipmentsDeps } from './deps.ts';
import { shipmentsRepo as repo } from './repo.ts';
import { sendcloudWebhooks } from './sendcloud-webhook.ts';
import { type ShippedListener, shipping } from './ship.ts';
import { type CarrierEventIn, type TrackingEventIn, trackingEvents } from './tracking-events.ts';
import { type ShipmentFacts, shipmentFacts, shipmentView } from './view.ts';
import { type CarrierParcel, type CarrierStatus, carrierParcel, carrierStatus } from './operator-view.ts';

export type { ShipInput, ShippedListener } from './ship.ts';
export type ShipmentsService = ReturnType<typeof shipmentsService>;
export type { ShipmentFacts } from './view.ts';
export type { CarrierParcel, CarrierStatus } from './operator-view.ts';

const TOKEN = /^[0-9a-hjkmnp-tv-z]{32}$/;

/** Shipments: shipping orders, carrier labels, tracking in, and the public tracking page's facts. */
export function shipmentsService(deps: ShipmentsDeps) {
  const { db, clock, config, organization, events } = deps;
  const view = shipmentView(deps);
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

  return {
    announce,
    /** The poll for quiet parcels and the lost-parcel check (hourly maintenance). */
    checkTracking: () => carrierIn.check(),
    receiveSendcloudWebhook: sendcloudWebhooks(deps, carrierIn),
    async get(orgId: string, ref: string) {
      return view(db, mustFind(await findRow(orgId, ref), 'Shipment', ref));
    },
    /** The shipment as GET shows it, or null when it does not exist or belongs to another organization. */
    async find(orgId: string, ref: string) {
      const s = await findRow(orgId, ref);
      return s ? view(db, s) : null;
    },

    ship: shipping(deps, view, shippedListeners),
    /** The lock `ship` takes for a combined parcel: whoever packs one takes it first (pack station). */
    lockCombined: (tx: Executor, storeId: string) => repo.lockCombined(tx, storeId),

    /** Work that starts when a shipment is created, in its transaction (a module above this one: labels). */
    onShipped(listener: ShippedListener): void {
      shippedListeners.push(listener);
    },

    /** Test helper: a scripted journey of tracking events; answers the shipment as it stands after them. */
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
      const store = await organization.storeIn(db, s.organization_id, s.store_id);
      const brandId = orders.find((o) => o.brandId)?.brandId ?? store?.defaultBrandId ?? null;
      const brand = brandId ? await organization.findBrand(s.organization_id, brandId) : null;
      const address = (await deps.orders.addressFields(db, s.address_id)) ?? {};
      const events = await repo.trackingEvents(db, s.id);
      return { shipment: s, brand, city: address.city ?? '', countryCode: address.countryCode ?? '', events };
    },

    /** Operator console: one shipment's parcel, its API view, address and every status its carrier sent. */
    async operatorShipment(ref: string) {
      const row = isReference('Shipment', ref) ? await repo.byId(db, ref) : null;
      if (!row) return null;
      const [shipment, statuses, address] = await Promise.all([
        view(db, row),
        repo.carrierStatuses(db, row.id),
        deps.orders.addressFields(db, row.address_id),
      ]);
      const carrierStatuses: CarrierStatus[] = statuses.map(carrierStatus);
      return { parcel: carrierParcel(row), shipment, statuses: carrierStatuses, address: address ?? {} };
    },
    /** Operator console: parcels to look at (returned, exception, lost, refused), oldest first. */
    async needingAttention(limit = 200): Promise<CarrierParcel[]> {
      return (await repo.needingAttention(db, limit)).map(carrierParcel);
    },

    /** For claims and production: the shipment (organization-scoped), its orders and the address it left with. */
    async shipment(ex: Executor, orgId: string, id: string): Promise<ShipmentFacts | null> {
      const s = await findRow(orgId, id, ex);
      return s && shipmentFacts(s);
    },
    ordersOfShipment: (ex: Executor, shipmentId: string) => deps.orders.ordersOfShipment(ex, shipmentId),
    async shipmentAddress(ex: Executor, s: Pick<ShipmentFacts, 'addressId'>): Promise<Address> {
      return (await deps.orders.addressFields(ex, s.addressId)) ?? {};
    },
    /** The shipment's row, for this module's tests. */
    shipmentRow: (ex: Executor, orgId: string, id: string) => findRow(orgId, id, ex),
  };
}

import type { Executor } from '../../platform/db/index.ts';
import type { BlobStore } from '../../platform/storage.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { validateAddress } from '../shipping/address.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { type AnnouncedParcel, type Carrier, CarrierRefusal, type ParcelAnnouncement } from '../carriers/port.ts';
import { EU, type ShippingMethods } from '../carriers/sendcloud/methods.ts';
import type { ShipmentsDeps } from './deps.ts';
import { type ShipmentRow, shipmentsRepo as repo } from './repo.ts';

export const ANNOUNCE_JOB = 'shipment.announce';
export const announceKey = (id: string, attempt: number) => `announce:${id}:${attempt}`;
export const labelKey = (id: string) => `labels/carrier/${id}.pdf`;
export const zplKey = (id: string) => `labels/carrier/${id}.zpl`;
export const customsKey = (id: string) => `labels/carrier/${id}-customs.pdf`;

/** The carrier's documents of a shipment: name, column, media type, file extension. */
const CARRIER_DOCUMENTS = {
  label: ['Carrier label', 'label_blob', 'application/pdf', 'pdf'],
  'label-zpl': ['ZPL label', 'label_zpl_blob', 'application/zpl', 'zpl'],
  'customs-declaration': ['Customs declaration', 'customs_blob', 'application/pdf', 'pdf'],
} as const;
export type CarrierDocument = keyof typeof CARRIER_DOCUMENTS;
export const CARRIER_DOCUMENT_KINDS = Object.keys(CARRIER_DOCUMENTS) as CarrierDocument[];

type AnnounceDeps = Pick<ShipmentsDeps, 'db' | 'clock' | 'orders' | 'carrier' | 'events'> & {
  blobs: BlobStore;
  returnAddress: string[];
  customs: ShippingMethods['customs'] & { packagingGrams: number };
  view: (ex: Executor, s: ShipmentRow) => Promise<Record<string, unknown>>;
};

/** Everything the carrier label and customs declaration need, from the shipment and its orders. */
async function parcelOf(deps: AnnounceDeps, s: ShipmentRow): Promise<ParcelAnnouncement> {
  const { db } = deps;
  const orders = await deps.orders.ordersOfShipment(db, s.id);
  const to = (await deps.orders.addressFields(db, s.address_id)) ?? {};
  const items = [];
  for (const o of orders)
    for (const l of await deps.orders.orderlines(db, o.id)) {
      if (l.shippedQuantity <= 0) continue;
      items.push({
        description: deps.customs.description,
        sku: l.productId,
        quantity: l.shippedQuantity,
        unitWeightGrams: l.unitWeightGrams,
        unitPriceCents: l.unitPriceCents,
        hsCode: deps.customs.hsCode,
        originCountry: deps.customs.originCountry,
      });
    }
  const weightGrams = deps.customs.packagingGrams + items.reduce((n, i) => n + i.quantity * i.unitWeightGrams, 0);
  const sender = (deps.returnAddress[0] ?? 'POD Fulfilment').replace(/^c\/o\s+/i, '');
  return {
    reference: s.id,
    orderNumber: orders
      .map((o) => o.id)
      .join(',')
      .slice(0, 255),
    level: s.level,
    to,
    from: deps.returnAddress,
    senderName: sender,
    items,
    weightGrams,
    currency: 'EUR',
    customs: !EU.has(to.countryCode ?? ''),
  };
}

/**
 * Announcing a parcel to the carrier, as a job: the operator's "ship" answers at once and the label
 * follows. A refusal (an address the carrier rejects) is stored verbatim for the console and waits
 * for the operator's retry; an unreachable carrier is retried by the job, with the last failure
 * shown. The shipment's reference is the carrier's idempotency key, so a retry after a crash
 * answers the parcel announced before instead of a second one.
 */
export function announcements(deps: AnnounceDeps) {
  const { db, clock, carrier } = deps;

  /** The shipment, locked, when the carrier refused it; else a 409. */
  async function refused(tx: Executor, ref: string): Promise<ShipmentRow> {
    const s = mustFind(await repo.byId(tx, ref, true), 'Shipment', ref);
    if (s.label_state !== 'refused')
      throw conflict(
        'shipment_not_refused',
        `Shipment ${ref} is ${s.label_state}; only a parcel the carrier refused is announced again`,
      );
    return s;
  }

  async function announceAgain(tx: Executor, s: ShipmentRow): Promise<void> {
    await repo.markPending(tx, s.id);
    await enqueue(
      tx,
      clock,
      ANNOUNCE_JOB,
      { shipmentId: s.id },
      { organizationId: s.organization_id, dedupeKey: announceKey(s.id, Date.now()), maxAttempts: 12 },
    );
  }

  return {
    /** The job: announce, store the label and tracking number; nothing if already announced. */
    async run(shipmentId: string, attempt: number, lastAttempt: boolean): Promise<void> {
      const s = await repo.byId(db, shipmentId);
      if (!s || s.label_state !== 'pending' || !carrier.announce) return;
      let parcel: AnnouncedParcel;
      try {
        parcel = await carrier.announce(await parcelOf(deps, s));
      } catch (err) {
        const message = (err as Error).message;
        if (err instanceof CarrierRefusal) {
          await db.tx(async (tx) => {
            await repo.markRefused(tx, s.id, message, clock.now());
          });
          return;
        }
        const seen = `Attempt ${attempt}${lastAttempt ? ' (the last)' : ''} failed: ${message}`;
        if (lastAttempt)
          await repo.markRefused(db, s.id, `${seen}. Retry once the carrier answers again.`, clock.now());
        else await repo.noteCarrierError(db, s.id, seen);
        throw err;
      }
      await deps.blobs.put(labelKey(s.id), parcel.labelPdf);
      if (parcel.labelZpl) await deps.blobs.put(zplKey(s.id), parcel.labelZpl);
      if (parcel.customsPdf) await deps.blobs.put(customsKey(s.id), parcel.customsPdf);
      await db.tx(async (tx) => {
        const locked = await repo.byId(tx, s.id, true);
        if (!locked || locked.label_state !== 'pending') return;
        await repo.markAnnounced(tx, s.id, {
          carrier: parcel.carrier,
          trackingNumber: parcel.trackingNumber,
          parcelId: parcel.parcelId,
          labelBlob: labelKey(s.id),
          zplBlob: parcel.labelZpl ? zplKey(s.id) : null,
          customsBlob: parcel.customsPdf ? customsKey(s.id) : null,
        });
        const fresh = (await repo.byId(tx, s.id))!;
        await deps.events.record(tx, {
          organizationId: s.organization_id,
          type: 'shipment.tracking_updated',
          data: { shipment: await deps.view(tx, fresh) },
        });
      });
    },

    /** Operator: announce a refused parcel again, unchanged (the carrier is back, a rule was added). */
    async retry(ref: string): Promise<void> {
      await db.tx(async (tx) => {
        await announceAgain(tx, await refused(tx, ref));
      });
    },

    /**
     * Operator: put right an address the carrier refused (the parcel is announced again) or one a
     * parcel came back from (a replacement decided on the shipment's claim goes there; decision
     * 0420). The shipment gets the corrected address, its claims and tracking page follow it; the
     * order keeps the one it was placed with. The country stays: another is another price and customs.
     */
    async correctAddress(ref: string, input: Record<string, unknown>): Promise<'pending' | 'returned'> {
      const address = validateAddress(input, 'body.address');
      return db.tx(async (tx) => {
        const s = mustFind(await repo.byId(tx, ref, true), 'Shipment', ref);
        if (s.label_state !== 'refused' && !s.returned_at)
          throw conflict(
            'shipment_not_refused',
            `Shipment ${ref} is ${s.label_state}; only a parcel the carrier refused or returned takes a corrected address`,
          );
        const before = (await deps.orders.addressFields(tx, s.address_id)) ?? {};
        if (address.countryCode !== before.countryCode)
          throw badRequest(
            `body.address.countryCode is ${address.countryCode}, but shipment ${ref} was paid and declared for ${before.countryCode}; correct the address within that country`,
          );
        const id = await deps.orders.createAddress(tx, s.organization_id, address, clock.now());
        await repo.setAddress(tx, s.id, id);
        if (s.label_state !== 'refused') return 'returned';
        await announceAgain(tx, s);
        return 'pending';
      });
    },

    /** Operator API: one of the carrier's documents of a shipment, or a 404 naming what is missing. */
    async document(ref: string, kind: CarrierDocument): Promise<{ bytes: Buffer; type: string; filename: string }> {
      const s = mustFind(await repo.byId(db, ref), 'Shipment', ref);
      const [what, blob, type, ext] = CARRIER_DOCUMENTS[kind];
      const bytes = mustFind(s[blob] ? await deps.blobs.get(s[blob]) : null, `${what} of shipment ${ref}`);
      return { bytes, type, filename: `${s.id}-${kind.replace('-zpl', '')}.${ext}` };
    },
  };
}

export type Announcements = ReturnType<typeof announcements>;
export type { Carrier };

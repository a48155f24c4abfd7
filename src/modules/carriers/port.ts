import type { CarrierKind } from '../../config.ts';
import type { Address } from '../shipping/address.ts';
import type { ShippingLevel } from '../shipping/data.ts';

/** What the operator or a test helper said when shipping. */
export interface ShipRequest {
  level: ShippingLevel;
  carrier?: string;
  trackingNumber?: string;
}

/**
 * How a new shipment gets its carrier and tracking number: at once (the sandbox, the manual
 * carrier, a number the operator typed), or by announcing the parcel to the carrier in a job.
 */
export type Assignment = { kind: 'now'; carrier: string; trackingNumber: string } | { kind: 'announce' };

export interface ParcelItem {
  description: string;
  sku: string;
  quantity: number;
  unitWeightGrams: number;
  unitPriceCents: number;
  hsCode: string;
  originCountry: string;
}

/** A parcel to announce: everything a carrier label and a customs declaration need. */
export interface ParcelAnnouncement {
  /** The shipment's reference: the idempotency key of the announcement. */
  reference: string;
  orderNumber: string;
  level: ShippingLevel;
  to: Address;
  /** The sender: the return address's lines, country code last. */
  from: string[];
  senderName: string;
  items: ParcelItem[];
  weightGrams: number;
  currency: string;
  /** Outside the EU: value, HS codes and a customs declaration go with the parcel. */
  customs: boolean;
}

export interface AnnouncedParcel {
  parcelId: string;
  carrier: string;
  trackingNumber: string;
  trackingUrl: string | null;
  labelPdf: Buffer;
  /** The same label in ZPL for thermal printers, when the carrier gives one. */
  labelZpl: Buffer | null;
  /**
   * The customs declaration (CN23, or the commercial invoice) the carrier made for a parcel leaving
   * the EU, to print and attach with the label; null inside the EU, or where the carrier takes the
   * declaration digitally and prints none.
   */
  customsPdf: Buffer | null;
}

/** The carrier refused the parcel (an address it cannot label): retrying unchanged will not help. */
export class CarrierRefusal extends Error {}

/** The carrier could not be reached or failed on its side: the job retries. */
export class CarrierUnavailable extends Error {}

/** The service's tracking statuses, as a carrier's statuses map onto them. */
export type MappedStatus = 'in_transit' | 'out_for_delivery' | 'delivered' | 'exception' | 'returned';

/** A status a carrier reported for one of its parcels, before mapping. */
export interface CarrierStatusIn {
  parcelId: string;
  trackingNumber: string | null;
  code: string;
  message: string | null;
  occurred: Date;
}

export interface Carrier {
  readonly kind: CarrierKind;
  /** Decides how a new tracked shipment is labelled; throws a 400 naming `field` when it cannot. */
  assign(req: ShipRequest, field: string): Assignment;
  /** Announces a parcel; the same reference twice answers the parcel announced the first time. */
  announce?(p: ParcelAnnouncement): Promise<AnnouncedParcel>;
  /** The latest statuses of parcels (the poll for parcels the webhooks went quiet about). */
  statuses?(
    parcels: Array<{ reference: string; parcelId: string; trackingNumber: string | null }>,
  ): Promise<CarrierStatusIn[]>;
  /** The tracking status a carrier status code means; null: kept and shown, not a tracking event. */
  mapStatus?(code: string, message?: string | null): MappedStatus | null;
}

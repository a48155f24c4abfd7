import type { ShippingLevel } from '../shipping/data.ts';
import type { Attention, CarrierStatusRow, LabelState, ShipmentRow, TrackingStatus } from './repo.ts';

/**
 * A shipment's parcel as the operator console and the pack station read it: its carrier, label and
 * what needs a look. Which of the carrier's documents are stored, not where.
 */
export interface CarrierParcel {
  id: string;
  organizationId: string;
  level: ShippingLevel;
  carrier: string | null;
  trackingNumber: string | null;
  labelState: LabelState;
  /** Who labels it (sendcloud, sandbox, manual) and the carrier's parcel id once announced. */
  carrierAdapter: string;
  carrierParcelId: string | null;
  /** The carrier's refusal, or the last failure to reach it. */
  carrierError: string | null;
  documents: { label: boolean; labelZpl: boolean; customsDeclaration: boolean };
  shippedAt: Date;
  deliveredAt: Date | null;
  returnedAt: Date | null;
  attention: Attention | null;
  attentionSince: Date | null;
}

/** One status a carrier sent for a parcel, as received, and the tracking status it maps to (if any). */
export interface CarrierStatus {
  occurredAt: Date;
  code: string;
  message: string | null;
  mappedStatus: TrackingStatus | null;
}

export const carrierParcel = (s: ShipmentRow): CarrierParcel => ({
  id: s.id,
  organizationId: s.organization_id,
  level: s.level,
  carrier: s.carrier,
  trackingNumber: s.tracking_number,
  labelState: s.label_state,
  carrierAdapter: s.carrier_adapter,
  carrierParcelId: s.carrier_parcel_id,
  carrierError: s.carrier_error,
  documents: { label: !!s.label_blob, labelZpl: !!s.label_zpl_blob, customsDeclaration: !!s.customs_blob },
  shippedAt: s.shipped_at,
  deliveredAt: s.delivered_at,
  returnedAt: s.returned_at,
  attention: s.attention,
  attentionSince: s.attention_since,
});

export const carrierStatus = (c: CarrierStatusRow): CarrierStatus => ({
  occurredAt: c.occurred_at,
  code: c.code,
  message: c.message,
  mappedStatus: c.mapped_status,
});

import { badRequest } from '../../platform/errors.ts';
import type { Assignment, Carrier, ShipRequest } from './port.ts';

/** A number the operator scanned or typed, with its carrier; refuses to ship without either. */
export function typedTracking(req: ShipRequest, field: string): Assignment {
  if (!req.trackingNumber)
    throw badRequest(
      `${field}.trackingNumber is required: the parcel was labelled outside the service, so scan or type the carrier's tracking number`,
      'tracking_number_required',
    );
  if (!req.carrier)
    throw badRequest(
      `${field}.carrier is required with a typed tracking number: name the carrier whose label is on the parcel`,
      'tracking_number_required',
    );
  return { kind: 'now', carrier: req.carrier, trackingNumber: req.trackingNumber.trim() };
}

/** Parcels labelled outside the service: the operator gives the carrier and its tracking number. */
export function manualCarrier(): Carrier {
  return { kind: 'manual', assign: typedTracking };
}

import type { SendcloudConfig } from '../../../config.ts';
import { typedTracking } from '../manual.ts';
import type { Carrier } from '../port.ts';
import { sendcloudAnnounce } from './announce.ts';
import { sendcloudClient } from './client.ts';
import { parcelDocuments } from './documents.ts';
import { loadShippingMethods } from './methods.ts';
import { mapSendcloudStatus } from './statuses.ts';
import { sendcloudStatuses } from './tracking.ts';

/**
 * Sendcloud's Shipments API v3 (POST /shipments/announce), its parcel documents (the label PDF
 * and ZPL, the customs declaration) and parcel tracking. The shipment's reference is sent as
 * `external_reference_id`, which Sendcloud keeps unique: announcing the same shipment again
 * answers 409 with the shipment it already has, so a retry after a crash never makes a second label.
 */
export function sendcloudCarrier(config: SendcloudConfig, fetchImpl: typeof fetch = fetch): Carrier {
  const call = sendcloudClient(config, fetchImpl);
  return {
    kind: 'sendcloud',
    // A number the operator typed is a parcel labelled elsewhere; without one, Sendcloud labels it.
    assign: (req, field) => (req.trackingNumber ? typedTracking(req, field) : { kind: 'announce' }),
    announce: sendcloudAnnounce(call, loadShippingMethods(), parcelDocuments(call)),
    statuses: sendcloudStatuses(call),
    mapStatus: mapSendcloudStatus,
  };
}

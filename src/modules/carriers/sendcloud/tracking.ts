import { type CarrierStatusIn, CarrierUnavailable } from '../port.ts';
import type { SendcloudCall } from './client.ts';

/** Polled tracking: each parcel's current status, from GET /shipments by the shipment's reference. */
export function sendcloudStatuses(call: SendcloudCall) {
  return async function statuses(
    parcels: Array<{ reference: string; parcelId: string; trackingNumber: string | null }>,
  ): Promise<CarrierStatusIn[]> {
    const out: CarrierStatusIn[] = [];
    for (const p of parcels) {
      const res = await call(`/shipments?external_reference_id=${encodeURIComponent(p.reference)}`);
      if (!res.ok) throw new CarrierUnavailable(`Sendcloud answered ${res.status} for parcel ${p.parcelId}`);
      const json = (await res.json()) as { data?: any[] };
      for (const s of json.data ?? [])
        for (const parcel of s.parcels ?? []) {
          if (String(parcel.id) !== p.parcelId || !parcel.status?.code) continue;
          out.push({
            parcelId: p.parcelId,
            trackingNumber: parcel.tracking_number ?? p.trackingNumber,
            code: String(parcel.status.code),
            message: parcel.status.message ?? null,
            occurred: new Date(parcel.updated_at ?? Date.now()),
          });
        }
    }
    return out;
  };
}

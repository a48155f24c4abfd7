import { type AnnouncedParcel, CarrierRefusal, CarrierUnavailable, type ParcelAnnouncement } from '../port.ts';
import { announceBody } from './body.ts';
import { type ErrorObject, type SendcloudCall, describeErrors } from './client.ts';
import type { parcelDocuments } from './documents.ts';
import type { loadShippingMethods } from './methods.ts';

/**
 * POST /shipments/announce: the parcel labelled, with its documents. Sendcloud's own trouble (5xx,
 * 429, refused keys) is CarrierUnavailable and retried; what it refuses in the parcel is CarrierRefusal.
 */
export function sendcloudAnnounce(
  call: SendcloudCall,
  methods: ReturnType<typeof loadShippingMethods>,
  docs: ReturnType<typeof parcelDocuments>,
) {
  return async function announce(p: ParcelAnnouncement): Promise<AnnouncedParcel> {
    const body = announceBody(p, methods);
    const res = await call('/shipments/announce', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json().catch(() => null)) as { data?: any; errors?: ErrorObject[] } | null;
    if (res.status >= 500 || res.status === 429 || !json)
      throw new CarrierUnavailable(`Sendcloud answered ${res.status}: ${describeErrors(json?.errors)}`);
    if (res.status === 401 || res.status === 403)
      throw new CarrierUnavailable(
        `Sendcloud refused the API keys (${res.status}): check SENDCLOUD_PUBLIC_KEY and SENDCLOUD_SECRET_KEY`,
      );
    if (res.status >= 400 && res.status !== 409) throw new CarrierRefusal(`Sendcloud: ${describeErrors(json.errors)}`);
    const data = json.data ?? {};
    const parcel = data.parcels?.[0];
    const errors: ErrorObject[] = data.errors ?? [];
    if (!parcel?.tracking_number || errors.length > 0) {
      const carrierSide = errors.some((e) => Number(e.status) >= 500);
      const message = `Sendcloud: ${describeErrors(errors.length ? errors : [{ detail: 'the parcel came back without a tracking number' }])}`;
      throw carrierSide ? new CarrierUnavailable(message) : new CarrierRefusal(message);
    }
    const parcelId = String(parcel.id);
    const labelPdf = parcel.label_file ? Buffer.from(parcel.label_file, 'base64') : await docs.label(parcelId);
    return {
      parcelId,
      carrier: data.carrier?.name ?? data.carrier?.code ?? 'Sendcloud',
      trackingNumber: String(parcel.tracking_number),
      trackingUrl: parcel.tracking_url ?? null,
      labelPdf,
      labelZpl: await docs.zpl(parcelId),
      customsPdf: p.customs ? await docs.customs(parcelId) : null,
    };
  };
}

import type { SendcloudConfig } from '../../../config.ts';
import { typedTracking } from '../manual.ts';
import {
  type AnnouncedParcel,
  type Carrier,
  CarrierRefusal,
  type CarrierStatusIn,
  CarrierUnavailable,
  type ParcelAnnouncement,
} from '../port.ts';
import { announceBody } from './body.ts';
import { loadShippingMethods } from './methods.ts';
import { mapSendcloudStatus } from './statuses.ts';

const TIMEOUT_MS = 30_000;

interface ErrorObject {
  status?: string;
  code?: string;
  detail?: string;
  source?: { pointer?: string };
}

/** Sendcloud's JSON:API errors as one line the operator can act on: field and carrier message, verbatim. */
export const describeErrors = (errors: ErrorObject[] | undefined) =>
  (errors ?? [])
    .map((e) => `${e.source?.pointer ? `${e.source.pointer}: ` : ''}${e.detail ?? e.code ?? 'error'}`)
    .join('; ') || 'no message';

/**
 * Sendcloud's Shipments API v3 (POST /shipments/announce), its parcel documents (the label PDF
 * and ZPL, the customs declaration)
 * and parcel tracking. The shipment's reference is sent as `external_reference_id`, which
 * Sendcloud keeps unique: announcing the same shipment again answers 409 with the shipment it
 * already has, so a retry after a crash never makes a second label.
 */
export function sendcloudCarrier(config: SendcloudConfig, fetchImpl: typeof fetch = fetch): Carrier {
  const methods = loadShippingMethods();
  const auth = `Basic ${Buffer.from(`${config.publicKey}:${config.secretKey}`).toString('base64')}`;

  async function call(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetchImpl(`${config.apiUrl}${path}`, {
        ...init,
        headers: { authorization: auth, accept: 'application/json', ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CarrierUnavailable(`Sendcloud could not be reached: ${(err as Error).message}`);
    }
  }

  const labelPath = (parcelId: string) => `/parcels/${encodeURIComponent(parcelId)}/documents/label`;

  async function label(parcelId: string): Promise<Buffer> {
    const res = await call(`${labelPath(parcelId)}?paper_size=A6`, { headers: { accept: 'application/pdf' } });
    if (!res.ok) throw new CarrierUnavailable(`Sendcloud answered ${res.status} for the label of parcel ${parcelId}`);
    return Buffer.from(await res.arrayBuffer());
  }

  /**
   * The carrier's native ZPL label for thermal printers, or null when the carrier has none (Sendcloud
   * answers another format or an error): the PDF is the label then.
   */
  async function zpl(parcelId: string): Promise<Buffer | null> {
    const res = await call(labelPath(parcelId), { headers: { accept: 'application/zpl' } });
    if (res.status >= 500 || res.status === 429)
      throw new CarrierUnavailable(`Sendcloud answered ${res.status} for the ZPL label of parcel ${parcelId}`);
    const type = res.headers.get('content-type') ?? '';
    if (!res.ok || !type.startsWith('application/zpl')) {
      await res.arrayBuffer().catch(() => null);
      return null;
    }
    const body = Buffer.from(await res.arrayBuffer());
    return body.subarray(0, 3).toString() === '^XA' || body.includes('^XA') ? body : null;
  }

  /**
   * The customs declaration of a parcel leaving the EU (`customs-declaration`: the CN23 or the
   * commercial invoice, whichever the carrier needs), in its own paper size (A4 as a rule). Null when
   * Sendcloud has none for the parcel (404: a carrier that takes the declaration digitally).
   */
  async function customs(parcelId: string): Promise<Buffer | null> {
    const res = await call(`/parcels/${encodeURIComponent(parcelId)}/documents/customs-declaration`, {
      headers: { accept: 'application/pdf' },
    });
    if (res.status === 404) {
      await res.arrayBuffer().catch(() => null);
      return null;
    }
    if (!res.ok)
      throw new CarrierUnavailable(
        `Sendcloud answered ${res.status} for the customs declaration of parcel ${parcelId}`,
      );
    return Buffer.from(await res.arrayBuffer());
  }

  async function announce(p: ParcelAnnouncement): Promise<AnnouncedParcel> {
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
    const labelPdf = parcel.label_file ? Buffer.from(parcel.label_file, 'base64') : await label(parcelId);
    return {
      parcelId,
      carrier: data.carrier?.name ?? data.carrier?.code ?? 'Sendcloud',
      trackingNumber: String(parcel.tracking_number),
      trackingUrl: parcel.tracking_url ?? null,
      labelPdf,
      labelZpl: await zpl(parcelId),
      customsPdf: p.customs ? await customs(parcelId) : null,
    };
  }

  async function statuses(parcels: Array<{ reference: string; parcelId: string; trackingNumber: string | null }>) {
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
  }

  return {
    kind: 'sendcloud',
    // A number the operator typed is a parcel labelled elsewhere; without one, Sendcloud labels it.
    assign: (req, field) => (req.trackingNumber ? typedTracking(req, field) : { kind: 'announce' }),
    announce,
    statuses,
    mapStatus: mapSendcloudStatus,
  };
}

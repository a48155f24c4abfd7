import { CarrierUnavailable } from '../port.ts';
import type { SendcloudCall } from './client.ts';

const labelPath = (parcelId: string) => `/parcels/${encodeURIComponent(parcelId)}/documents/label`;

/** A parcel's documents: the label as PDF and as ZPL, the customs declaration. */
export function parcelDocuments(call: SendcloudCall) {
  return {
    async label(parcelId: string): Promise<Buffer> {
      const res = await call(`${labelPath(parcelId)}?paper_size=A6`, { headers: { accept: 'application/pdf' } });
      if (!res.ok) throw new CarrierUnavailable(`Sendcloud answered ${res.status} for the label of parcel ${parcelId}`);
      return Buffer.from(await res.arrayBuffer());
    },

    /**
     * The carrier's native ZPL label for thermal printers, or null when the carrier has none (Sendcloud
     * answers another format or an error): the PDF is the label then.
     */
    async zpl(parcelId: string): Promise<Buffer | null> {
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
    },

    /**
     * The customs declaration of a parcel leaving the EU (`customs-declaration`: the CN23 or the
     * commercial invoice, whichever the carrier needs), in its own paper size (A4 as a rule). Null when
     * Sendcloud has none for the parcel (404: a carrier that takes the declaration digitally).
     */
    async customs(parcelId: string): Promise<Buffer | null> {
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
    },
  };
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CarrierStatusIn } from '../port.ts';

/** `Sendcloud-Signature`: the hex HMAC-SHA256 of the raw body with the integration's key. */
export function verifySendcloudSignature(raw: string, header: string | undefined, key: string): boolean {
  if (!header || !/^[0-9a-f]{64}$/i.test(header)) return false;
  const expected = createHmac('sha256', key).update(raw, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

/**
 * The parcel status in a verified webhook body, or null for an action that carries none
 * (integration connected, return created…), which is acknowledged and ignored.
 */
export function parcelStatusOf(payload: any): CarrierStatusIn | null {
  if (payload?.action !== 'parcel_status_changed') return null;
  const p = payload.parcel;
  if (!p || p.id === undefined || p.status?.id === undefined) return null;
  const at = Number(payload.carrier_status_change_timestamp ?? payload.timestamp);
  return {
    parcelId: String(p.id),
    trackingNumber: typeof p.tracking_number === 'string' ? p.tracking_number : null,
    code: String(p.status.id),
    message: typeof p.status.message === 'string' ? p.status.message : null,
    occurred: Number.isFinite(at) ? new Date(at) : new Date(),
  };
}

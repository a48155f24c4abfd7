import { ApiError, badRequest, notFound } from '../../platform/errors.ts';
import { unstorableText } from '../../platform/http/hardening.ts';
import { parcelStatusOf, verifySendcloudSignature } from '../carriers/sendcloud/webhook.ts';
import type { CarrierTracking } from './carrier-tracking.ts';
import type { ShipmentsDeps } from './deps.ts';

/**
 * A Sendcloud webhook, verified on its raw body: a forged one is a 401 and nothing is stored;
 * a status for a parcel no shipment knows is acknowledged and ignored (logged once).
 */
export function sendcloudWebhooks(deps: Pick<ShipmentsDeps, 'config' | 'carrier'>, carrierIn: CarrierTracking) {
  return async function receive(raw: string, signature: string | undefined) {
    const key = deps.config.sendcloud?.webhookKey;
    if (deps.carrier.kind !== 'sendcloud' || !key) throw notFound('Sendcloud integration');
    if (!verifySendcloudSignature(raw, signature, key))
      throw new ApiError('unauthorized', 'Sendcloud-Signature does not match the body');
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      throw badRequest('the body is not JSON');
    }
    const unstorable = unstorableText(payload, 'body');
    if (unstorable) throw badRequest(unstorable);
    const status = parcelStatusOf(payload);
    return status ? carrierIn.receive([status]) : { stored: 0, ignored: 1 };
  };
}

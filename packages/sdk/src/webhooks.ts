import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

/**
 * A verified webhook event. `reference` is the `webhook-id` header: the event's `Event_…`
 * reference, the same on every retry and resend, so use it to drop duplicates.
 */
export interface WebhookEvent<D = Record<string, unknown>> {
  reference: string;
  type: string;
  timestamp: string;
  data: D;
  [k: string]: unknown;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the endpoint's `whsec_…` secret and returns the parsed event.
 * Pass the raw body exactly as received (not re-serialized JSON). During a secret rotation pass
 * both secrets: the delivery is accepted when any of them signed it. Throws
 * `WebhookVerificationError` on a bad signature or a timestamp more than 5 minutes off.
 */
export function verifyWebhook<D = Record<string, unknown>>(
  payload: string | Uint8Array,
  headers: HeaderBag,
  secret: string | string[],
): WebhookEvent<D> {
  const secrets = Array.isArray(secret) ? secret : [secret];
  if (secrets.length === 0) throw new TypeError('verifyWebhook: at least one secret is required');
  const required = {
    'webhook-id': header(headers, 'webhook-id') ?? '',
    'webhook-timestamp': header(headers, 'webhook-timestamp') ?? '',
    'webhook-signature': header(headers, 'webhook-signature') ?? '',
  };
  const body =
    typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let last: unknown;
  for (const s of secrets) {
    try {
      const event = new Webhook(s).verify(body, required) as Omit<WebhookEvent<D>, 'reference'>;
      return { ...event, reference: required['webhook-id'] } as WebhookEvent<D>;
    } catch (err) {
      last = err;
    }
  }
  throw last instanceof Error ? last : new WebhookVerificationError('No matching signature found');
}

/** The legacy order-updated callback (an HTTP GET with query parameters, no body). */
export interface LegacyCallback {
  environment: 'prod' | 'test';
  /** V1-style `<store_code>-<number>`. */
  orderReference: string;
  /** `Order_…`: fetch the current state with `client.orders.get(orderReferenceV2)`. */
  orderReferenceV2: string;
  storeCode: string;
  /** The order's custom identifier, when it has one (`custom_reference`, alias `partner_reference`). */
  customReference: string | null;
  /** Integrator's store code, when the order came through one (`via_store_code`, alias `via_partner_code`). */
  viaStoreCode: string | null;
}

export class LegacyCallbackError extends Error {
  override readonly name = 'LegacyCallbackError';
}

type QueryInput = string | URL | URLSearchParams | Record<string, string | string[] | undefined>;

function toParams(input: QueryInput): URLSearchParams {
  if (input instanceof URLSearchParams) return input;
  if (input instanceof URL) return input.searchParams;
  if (typeof input === 'string') {
    const q = input.includes('?') ? input.slice(input.indexOf('?') + 1) : input;
    return new URLSearchParams(q.split('#')[0]);
  }
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, one);
  }
  return p;
}

/**
 * Parses the legacy callback's query (a full URL, a query string, URLSearchParams or a framework's
 * parsed query object). The current names win over the deprecated aliases (`partner_reference`,
 * `partner_code`, `via_partner_code`). The callback is unsigned: treat it only as a hint and
 * fetch the order with the API.
 */
export function parseLegacyCallback(input: QueryInput): LegacyCallback {
  const p = toParams(input);
  const get = (name: string, alias?: string): string | null => {
    const v = p.get(name) ?? (alias ? p.get(alias) : null);
    return v === null || v === '' ? null : v;
  };
  const required = (name: string, alias?: string): string => {
    const v = get(name, alias);
    if (v === null) throw new LegacyCallbackError(`legacy callback: query parameter ${name} is missing`);
    return v;
  };
  const environment = required('environment');
  if (environment !== 'prod' && environment !== 'test') {
    throw new LegacyCallbackError(`legacy callback: environment must be prod or test, got "${environment}"`);
  }
  const orderReferenceV2 = required('order_reference_v2');
  if (!/^Order_[0-9a-z]{26}$/.test(orderReferenceV2)) {
    throw new LegacyCallbackError(
      `legacy callback: order_reference_v2 "${orderReferenceV2}" is not an Order_ reference`,
    );
  }
  return {
    environment,
    orderReference: required('order_reference'),
    orderReferenceV2,
    storeCode: required('store_code', 'partner_code'),
    customReference: get('custom_reference', 'partner_reference'),
    viaStoreCode: get('via_store_code', 'via_partner_code'),
  };
}

/** The order or shipment an event is about, with the event's place in that object's sequence. */
export interface EventObject {
  kind: 'order' | 'shipment';
  reference: string;
  sequence: number;
}

/**
 * Order and shipment events carry the object's full state and a per-object `sequence` that grows
 * by one with each event about it. Keep the last sequence you applied per reference and drop an
 * event whose sequence is not higher: it is older than the state you already have.
 */
export function eventObject(event: Pick<WebhookEvent, 'type' | 'data'>): EventObject | null {
  const kind = event.type.split('.')[0];
  if (kind !== 'order' && kind !== 'shipment') return null;
  const data = event.data as Record<string, { reference?: unknown } | unknown>;
  const ref = (data[kind] as { reference?: unknown } | undefined)?.reference;
  const sequence = data.sequence;
  return typeof ref === 'string' && typeof sequence === 'number' ? { kind, reference: ref, sequence } : null;
}

/** True when `event` is older than (or the same as) the state last applied for its object. */
export function isStaleEvent(event: Pick<WebhookEvent, 'type' | 'data'>, lastApplied: number | undefined): boolean {
  const o = eventObject(event);
  return !!o && lastApplied !== undefined && o.sequence <= lastApplied;
}

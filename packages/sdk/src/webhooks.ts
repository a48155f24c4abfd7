import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery whose signature, timestamp or headers do not check out. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

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

/** Standard Webhooks: a receiver refuses a timestamp further than this from its own clock. */
const TOLERANCE_SECONDS = 5 * 60;

function secretBytes(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  if (key.length === 0) throw new TypeError('webhook secret must be whsec_ followed by base64');
  return key;
}

function signature(secret: string, id: string, timestamp: number, payload: string | Uint8Array): Buffer {
  const hmac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.`);
  return hmac.update(payload).digest();
}

/**
 * The `webhook-signature` header value (`v1,<base64>`) for a payload, as the service signs its
 * deliveries (Standard Webhooks): HMAC-SHA256 over `<id>.<timestamp>.<payload>` with the secret.
 * Useful to test your receiver; `podpartner listen` signs forwarded events with it.
 */
export function signWebhook(secret: string, id: string, timestamp: Date | number, payload: string): string {
  const seconds = typeof timestamp === 'number' ? timestamp : Math.floor(timestamp.getTime() / 1000);
  return `v1,${signature(secret, id, seconds, payload).toString('base64')}`;
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
  now: Date = new Date(),
): WebhookEvent<D> {
  const secrets = Array.isArray(secret) ? secret : [secret];
  if (secrets.length === 0) throw new TypeError('verifyWebhook: at least one secret is required');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing required headers');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid Signature Headers');
  const skew = Math.floor(now.getTime() / 1000) - seconds;
  if (skew > TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too old');
  if (skew < -TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too new');
  const given = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  const matches = secrets.some((s) => {
    const expected = signature(s, id, seconds, payload);
    return given.some((g) => g.length === expected.length && timingSafeEqual(g, expected));
  });
  if (!matches) throw new WebhookVerificationError('No matching signature found');
  const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  let event: Omit<WebhookEvent<D>, 'reference'>;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('The payload is not JSON');
  }
  return { ...event, reference: id } as WebhookEvent<D>;
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

/** The field of an event's data that holds its object, by the first word of its type. */
const OBJECT_FIELD = {
  order: 'order',
  shipment: 'shipment',
  claim: 'claim',
  render: 'render',
  product: 'product',
  webhook_endpoint: 'webhookEndpoint',
} as const;

/** The object an event is about, with the event's place in that object's sequence. */
export interface EventObject {
  /** The field of `data` that holds the object. */
  kind: (typeof OBJECT_FIELD)[keyof typeof OBJECT_FIELD];
  reference: string;
  sequence: number;
}

/**
 * Events carry their object's full state and a per-object `sequence` that grows by one with each
 * event about it (a product's, per organization). Keep the last sequence you applied per reference
 * and drop an event whose sequence is not higher: it is older than the state you already have.
 */
export function eventObject(event: Pick<WebhookEvent, 'type' | 'data'>): EventObject | null {
  const kind = OBJECT_FIELD[event.type.split('.')[0] as keyof typeof OBJECT_FIELD];
  if (!kind) return null;
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

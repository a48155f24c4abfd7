import '@shopify/shopify-api/adapters/node';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiVersion, LogSeverity, type Shopify, shopifyApi } from '@shopify/shopify-api';
import type { FetchLike } from './client.ts';
import { CALLBACK_PATH, SHOPIFY_API_VERSION } from './version.ts';

export interface ShopifyAppConfig {
  apiKey: string;
  apiSecret: string;
  scopes: string[];
  publicBaseUrl: string;
}

/** What a signed OAuth `state` carries: who asked to connect which shop, and until when. */
export interface ConnectIntent {
  organizationId: string;
  accountId: string;
  brandId: string;
  name: string;
  shop: string;
  expiresAt: number;
}

/** Where a verified webhook came from and what it is. */
export interface VerifiedWebhook {
  topic: string;
  shop: string;
  /** X-Shopify-Event-Id when sent (the same for every delivery of one event), else X-Shopify-Webhook-Id. */
  deliveryKey: string;
}

export type WebhookCheck = { ok: true; webhook: VerifiedWebhook } | { ok: false; reason: string };

const MYSHOPIFY = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;
/** What Shopify's library requires of a subscription's webhook besides its signature, in this order. */
const REQUIRED_WEBHOOK_HEADERS = [
  'x-shopify-topic',
  'x-shopify-shop-domain',
  'x-shopify-api-version',
  'x-shopify-webhook-id',
];

/** A request header's value (the first, when sent twice). */
const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};
const STATE_TTL_MS = 10 * 60_000;

/**
 * A subscription's webhook (signed in X-Shopify-Hmac-Sha256), checked as Shopify's library checks
 * it (the base64 HMAC-SHA256 of the raw body with the app's secret, then the headers it requires)
 * with node's synchronous HMAC: the library's Web Crypto call costs more CPU than the rest of a
 * webhook's intake. Null for any other shape (Shopify's Events headers, no signature, no body),
 * which the library checks and names what is wrong.
 */
function subscriptionWebhook(
  secret: string,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
  shopDomain: (raw: unknown) => string | null,
): WebhookCheck | null {
  const hmac = header(headers, 'x-shopify-hmac-sha256');
  if (!hmac || rawBody.length === 0) return null;
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('base64'));
  const given = Buffer.from(hmac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { ok: false, reason: 'invalid_hmac' };
  const [topic, domain, apiVersion, webhookId] = REQUIRED_WEBHOOK_HEADERS.map((h) => header(headers, h));
  if (!topic || !domain || !apiVersion || !webhookId) return { ok: false, reason: 'missing_headers' };
  const shop = shopDomain(domain);
  if (!shop) return { ok: false, reason: 'invalid_shop' };
  return { ok: true, webhook: { topic, shop, deliveryKey: header(headers, 'x-shopify-event-id') || webhookId } };
}

/**
 * The Shopify app: Shopify's official library checks shops, OAuth callbacks and webhook signatures;
 * the install URL, the signed state and the token exchange are built here because they carry this
 * service's own data (who connects, into which account and brand) and go through an injectable fetch.
 */
export function shopifyApp(cfg: ShopifyAppConfig, fetchApi: FetchLike) {
  const base = new URL(cfg.publicBaseUrl);
  const api: Shopify = shopifyApi({
    apiKey: cfg.apiKey,
    apiSecretKey: cfg.apiSecret,
    scopes: cfg.scopes,
    hostName: base.host,
    hostScheme: base.protocol === 'http:' ? 'http' : 'https',
    apiVersion: SHOPIFY_API_VERSION as ApiVersion,
    isEmbeddedApp: false,
    // The library's own log lines could carry shop data; only its errors reach ours, and those
    // never carry a token (the library logs none).
    logger: { level: LogSeverity.Error, httpRequests: false, timestamps: false, log: async () => {} },
  });

  const sign = (data: string) => createHmac('sha256', cfg.apiSecret).update(data).digest('base64url');

  /** A `*.myshopify.com` host, lower-cased, or null. */
  function shopDomain(raw: unknown): string | null {
    if (typeof raw !== 'string' || raw.length > 255) return null;
    const shop = api.utils.sanitizeShop(raw.trim().toLowerCase());
    return shop && MYSHOPIFY.test(shop) ? shop : null;
  }

  return {
    shopDomain,
    callbackUrl: `${cfg.publicBaseUrl}${CALLBACK_PATH}`,

    /** The authorization URL of Shopify's authorization-code grant (offline token: no per-user option). */
    installUrl(intent: Omit<ConnectIntent, 'expiresAt'>, now: number): string {
      const payload = Buffer.from(
        JSON.stringify({ ...intent, expiresAt: now + STATE_TTL_MS, n: randomBytes(8).toString('hex') }),
      ).toString('base64url');
      const q = new URLSearchParams({
        client_id: cfg.apiKey,
        scope: cfg.scopes.join(','),
        redirect_uri: `${cfg.publicBaseUrl}${CALLBACK_PATH}`,
        state: `${payload}.${sign(payload)}`,
      });
      return `https://${intent.shop}/admin/oauth/authorize?${q}`;
    },

    /** The intent of a callback whose hmac, state and shop all check out; null otherwise. */
    async verifyCallback(query: Record<string, string>, now: number): Promise<ConnectIntent | null> {
      const shop = shopDomain(query.shop);
      if (!shop || !query.code || !query.state || !query.hmac) return null;
      let valid = false;
      try {
        valid = await api.utils.validateHmac(query);
      } catch {
        return null; // a missing or stale timestamp
      }
      if (!valid) return null;
      const [payload, mac] = query.state.split('.');
      if (!payload || !mac) return null;
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      const intent = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ConnectIntent;
      if (intent.shop !== shop || intent.expiresAt < now) return null;
      return intent;
    },

    /** Trades the authorization code for the shop's offline access token. */
    async exchangeCode(shop: string, code: string): Promise<{ accessToken: string; scopes: string }> {
      const res = await fetchApi(`https://${shop}/admin/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ client_id: cfg.apiKey, client_secret: cfg.apiSecret, code }),
      });
      if (!res.ok) throw new Error(`Shopify refused the authorization code (${res.status})`);
      const body = (await res.json()) as { access_token?: string; scope?: string };
      if (typeof body.access_token !== 'string' || !body.access_token)
        throw new Error('Shopify returned no access token');
      return { accessToken: body.access_token, scopes: body.scope ?? '' };
    },

    /** A webhook's signature over the raw body and its headers (`subscriptionWebhook`, else Shopify's library). */
    async verifyWebhook(
      rawBody: string,
      headers: Record<string, string | string[] | undefined>,
    ): Promise<WebhookCheck> {
      const checked = subscriptionWebhook(cfg.apiSecret, rawBody, headers, shopDomain);
      if (checked) return checked;
      const result = await api.webhooks.validate({
        rawBody,
        rawRequest: { headers } as never,
        rawResponse: {} as never,
      });
      if (!result.valid) return { ok: false, reason: result.reason };
      const shop = shopDomain(result.domain);
      if (!shop) return { ok: false, reason: 'invalid_shop' };
      const eventId = (result as { eventId?: string }).eventId;
      return {
        ok: true,
        webhook: { topic: String(headers['x-shopify-topic'] ?? ''), shop, deliveryKey: eventId || result.webhookId },
      };
    },

    /** A fulfillment service notification (the callback URL's fulfillment_order_notification). */
    async verifyNotification(
      rawBody: string,
      headers: Record<string, string | string[] | undefined>,
    ): Promise<string | null> {
      const result = await api.fulfillmentService.validate({
        rawBody,
        rawRequest: { headers } as never,
        rawResponse: {} as never,
      });
      if (!result.valid) return null;
      return shopDomain(headers['x-shopify-shop-domain']);
    },
  };
}

export type ShopifyApp = ReturnType<typeof shopifyApp>;

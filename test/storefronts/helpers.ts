import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type TestApp, createTestApp } from '../support/app.ts';
import { ShopifyStandIn } from '../support/shopify-standin.ts';
import { products } from '../orders/helpers.ts';

/**
 * Connects the first demo organization's store to a stand-in shop the way a partner does: the
 * install URL, the merchant's approval on "Shopify", the signed callback. Returns the store reference.
 */
export async function connectShop(t: TestApp, shopify: ShopifyStandIn, shop = 'case-lovers.myshopify.com') {
  const org = t.seed.organizations[0];
  const url = await t.s.storefronts.installUrl(org.reference, {
    shop,
    name: 'Case Lovers',
    accountId: org.accounts[0].reference,
    brandId: org.brands[0].reference,
  });
  const back = await t.app.inject({
    method: 'GET',
    url: `/integrations/shopify/callback?${new URLSearchParams(shopify.approve(url))}`,
  });
  return back.headers.location!.split('/')[3].split('?')[0];
}

export const SHOPIFY_SECRET = 'shopify-app-secret';
export const SHOP = 'case-lovers.myshopify.com';

/** Shopify's documented orders/create example (test/fixtures/shopify/webhooks/README.md names the source). */
export const ORDER_EXAMPLE = JSON.parse(
  readFileSync(new URL('../fixtures/shopify/webhooks/orders_create.json', import.meta.url), 'utf8'),
);

/** A test app with the Shopify app set up against a stand-in, and the first organization's store connected to SHOP. */
export async function shopifyTestApp() {
  const shopify = await new ShopifyStandIn(SHOPIFY_SECRET).start();
  const t = await createTestApp({
    env: { SHOPIFY_API_KEY: 'app-key', SHOPIFY_API_SECRET: SHOPIFY_SECRET },
    shopifyFetch: shopify.fetch,
  });
  const store = await connectShop(t, shopify, SHOP);
  await t.s.worker.drain();
  return {
    t,
    shopify,
    store,
    /** A signed `orders/create` webhook of SHOP with this payload and webhook id. */
    orderWebhook(payload: unknown, deliveryId: string) {
      const raw = JSON.stringify(payload);
      return t.app.inject({
        method: 'POST',
        url: '/integrations/shopify/webhooks',
        headers: shopify.webhookHeaders('orders/create', SHOP, raw, deliveryId),
        payload: raw,
      });
    },
    async close() {
      await t.close();
      await shopify.stop();
    },
  };
}

/** Shopify's documented example payload of a topic (API 2026-07); test/fixtures/shopify/webhooks/README.md names the source. */
export function shopifyExample(topic: string): any {
  const file = new URL(`../fixtures/shopify/webhooks/${topic.replace('/', '_')}.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The documented orders/create example with two of its lines turned into our products. */
export function orderPayload(t: TestApp, image: string, name: string, id: string) {
  const o = shopifyExample('orders/create');
  const p = products(t);
  o.admin_graphql_api_id = `gid://shopify/Order/${id}`;
  o.name = name;
  o.line_items[0].sku = `${p.clear}.${image}`;
  o.line_items[0].quantity = 2;
  o.line_items[1].sku = p.protector;
  o.shipping_address.country_code = 'NL';
  return o;
}

export interface WebhookOptions {
  id?: string;
  shop?: string;
  secret?: string;
  raw?: string;
}

/** A webhook to `path` signed as Shopify signs it for SHOP; `opts` forge the shop, the secret or the raw body. */
export function signedWebhook(
  t: TestApp,
  shopify: ShopifyStandIn,
  path: string,
  topic: string,
  payload: unknown,
  opts: WebhookOptions = {},
) {
  const raw = opts.raw ?? JSON.stringify(payload);
  const headers = shopify.webhookHeaders(topic, opts.shop ?? SHOP, raw, opts.id, opts.secret);
  return t.app.inject({ method: 'POST', url: path, headers, payload: raw });
}

/** The status and error code of an answer, whether from `call` or from `t.app.inject`. */
export function expectError(res: { statusCode: number; body: string }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(JSON.parse(res.body).code, code, res.body);
}

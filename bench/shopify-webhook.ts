/**
 * The signed `orders/create` webhook both Shopify benches send: Shopify's documented example payload
 * made into the n-th new Shopify order (one stocked product, a Dutch address), signed with the app
 * secret the bench's server is started with.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHOPIFY_API_VERSION } from '../src/modules/storefronts/shopify/version.ts';
import { DEMO_SHOP } from '../src/seed/shopify.ts';

/** SHOPIFY_API_SECRET of the bench's server: the webhooks are signed with it. */
export const SHOPIFY_BENCH_SECRET = 'bench-shopify-secret';

const example = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'src', 'seed', 'shopify-order-example.json'), 'utf8'),
);

/** The n-th webhook: body and headers, `webhookPrefix` keeping the webhook ids of two runs apart. */
export function shopifyOrderWebhook(n: number, sku: string, webhookPrefix: string) {
  const id = String(7_000_000_000_000 + n);
  const body = JSON.stringify({
    ...example,
    id: Number(id),
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#B${n}`,
    shipping_address: { ...example.shipping_address, country_code: 'NL', phone: null },
    line_items: [{ ...example.line_items[0], sku, quantity: 1 }, ...example.line_items.slice(1)],
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-shopify-topic': 'orders/create',
    'x-shopify-shop-domain': DEMO_SHOP,
    'x-shopify-api-version': SHOPIFY_API_VERSION,
    'x-shopify-webhook-id': `${webhookPrefix}-${id}`,
    'x-shopify-hmac-sha256': createHmac('sha256', SHOPIFY_BENCH_SECRET).update(body).digest('base64'),
  };
  return { body, headers };
}

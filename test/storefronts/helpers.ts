import { readFileSync } from 'node:fs';
import { type TestApp, createTestApp } from '../support/app.ts';
import { ShopifyStandIn } from '../support/shopify-standin.ts';

/**
 * Connects the first demo organization's store to a stand-in shop the way a partner does: the
 * install URL, the merchant's approval on "Shopify", the signed callback. Returns the store reference.
 */
export async function connectShop(t: TestApp, shopify: ShopifyStandIn, shop = 'case-lovers.myshopify.com') {
  const org = t.seed.organizations[0];
  const url = t.s.storefronts.installUrl(org.reference, {
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

/**
 * The OpenAPI examples of the Shopify publishing extension, captured from a test app connected to
 * the Shopify stand-in, and merged into src/openapi/examples.json (capture-openapi-examples.ts
 * merges them too when it records every operation).
 *
 *   npx tsx scripts/capture-shopify-examples.ts
 */
import { ManualClock } from '../src/platform/clock.ts';
import { EXAMPLES_FILE, type OperationExamples } from '../src/openapi/examples.ts';
import { call, createTestApp } from '../test/support/app.ts';
import { uploadImage } from '../test/orders/helpers.ts';
import { ShopifyStandIn } from '../test/support/shopify-standin.ts';
import { connectShop } from '../test/storefronts/helpers.ts';
import { REQUEST_ID, writeExamples } from './openapi-examples/recorder.ts';

export async function captureShopify(): Promise<Record<string, OperationExamples>> {
  const shopify = await new ShopifyStandIn('example-secret').start();
  const t = await createTestApp({
    clock: new ManualClock(new Date('2026-03-02T09:30:00Z')),
    env: {
      PUBLIC_BASE_URL: 'https://api.example.com',
      SHOPIFY_API_KEY: 'example-key',
      SHOPIFY_API_SECRET: 'example-secret',
    },
    shopifyFetch: shopify.fetch,
  });
  const out: Record<string, OperationExamples> = {};
  const send = async (id: string, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) => {
    const res = await call(t, method, url, { body, headers: { 'x-request-id': REQUEST_ID } });
    const entry = (out[id] ??= { responses: {} });
    if (res.statusCode < 300 && body !== undefined) entry.request ??= body;
    entry.responses[String(res.statusCode)] ??= res.data;
    return res;
  };
  try {
    const org = t.seed.organizations[0];
    const store = await connectShop(t, shopify);
    const image = await uploadImage(t);
    const products = ['iPhone 15 Clear Case', 'Demo Walnut Leather Case iPhone 15'].map(
      (n) => org.products!.find((p) => p.name === n)!.reference,
    );
    const base = `/v2/stores/${store}/shopify/publications`;
    const body = {
      publication: { imageReference: image, productReferences: products, priceCents: 2995, title: 'Sunset case' },
    };
    const made = await send('publishToShopify', 'POST', base, body);
    await send(
      'publishToShopify',
      'POST',
      `/v2/stores/${org.stores.find((s) => s.code === 'DEMO1')!.reference}/shopify/publications`,
      body,
    );
    await t.s.worker.drain();
    await send('listShopifyPublications', 'GET', base);
    await send('listShopifyPublications', 'GET', '/v2/stores/Store_0000000000000000000000zzzz/shopify/publications');
    await send('unpublishFromShopify', 'DELETE', `${base}/${made.data.publication.reference}`);
    await send('unpublishFromShopify', 'DELETE', `${base}/ShopifyProduct_0000000000000000000000zzzz`);
    return out;
  } finally {
    await t.close();
    await shopify.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeExamples(await captureShopify(), true);
  console.log(`Shopify examples merged into ${EXAMPLES_FILE}`);
}

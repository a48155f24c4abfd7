import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call } from '../support/app.ts';
import type { ShopifyStandIn } from '../support/shopify-standin.ts';
import { createLogger } from '../../src/runtime.ts';
import { redact } from '../../src/modules/requestlog/redact.ts';
import { products, uploadImage } from '../orders/helpers.ts';
import { SHOP, type WebhookOptions, expectError, orderPayload, shopifyTestApp, signedWebhook } from './helpers.ts';

describe('Shopify stores: publishing, the demo store and what is refused', () => {
  let app: Awaited<ReturnType<typeof shopifyTestApp>>;
  let t: TestApp;
  let shopify: ShopifyStandIn;
  let storeRef: string;
  let image: string;

  const webhook = (topic: string, payload: unknown, opts: WebhookOptions = {}) =>
    signedWebhook(t, shopify, '/integrations/shopify/webhooks', topic, payload, opts);
  const inboxCount = async () =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM storefront_inbox'))[0].n;

  before(async () => {
    app = await shopifyTestApp();
    ({ t, shopify, store: storeRef } = app);
    image = await uploadImage(t);
  });
  after(() => app.close());

  it('shows the demo Shopify store with three Shopify orders taken through the intake', async () => {
    const demo = t.seed.organizations[0].stores.find((x) => x.code === 'DEMOSHOP')!.reference;
    assert.equal((await t.s.storefronts.connection(demo))?.shopDomain, 'demo-cases.myshopify.com');
    const orders = (await call(t, 'GET', `/v2/orders?storeReference=${demo}`)).data.orders as Array<
      Record<string, any>
    >;
    assert.deepEqual(orders.map((o) => o.upstreamOrder?.name).sort(), ['#1001', '#1002', '#1003']);
    assert.deepEqual(
      orders.map((o) => o.shippingLevel).sort(),
      ['basic', 'express', 'tracked'],
      'the shipping line names the level',
    );
    const cancel = await call(t, 'POST', `/v2/orders/${orders[0].reference}/cancel`, {
      body: { orderlines: [{ index: 1, canceledQuantity: 1 }] },
    });
    expectError(cancel, 403, 'store_not_writable_via_api');
  });

  it('refuses forged, unsigned, unknown-shop, malformed and oversized webhooks, storing nothing', async () => {
    const n = await inboxCount();
    const payload = orderPayload(t, image, '#10000', '5300000000002');
    expectError(
      await webhook('orders/create', payload, { secret: 'not-the-secret' }),
      401,
      'shopify_signature_invalid',
    );
    const raw = JSON.stringify(payload);
    const unsigned = { ...shopify.webhookHeaders('orders/create', SHOP, raw) } as Record<string, string>;
    delete unsigned['x-shopify-hmac-sha256'];
    expectError(
      await t.app.inject({ method: 'POST', url: '/integrations/shopify/webhooks', headers: unsigned, payload: raw }),
      401,
      'shopify_signature_invalid',
    );
    expectError(await webhook('orders/create', payload, { shop: 'nobody.myshopify.com' }), 404, 'shopify_shop_unknown');
    expectError(
      await webhook('orders/create', null, { raw: '{"admin_graphql_api_id": ' }),
      400,
      'shopify_payload_invalid',
    );
    // PostgreSQL's jsonb holds no NUL character: refused with the payload's error, not the database's.
    const nul = await webhook('orders/create', { ...payload, note: 'a\u0000b' });
    expectError(nul, 400, 'shopify_payload_invalid');
    assert.match(nul.json().message, /NUL/);
    const noLines = await webhook('orders/create', { ...payload, line_items: 'none' });
    expectError(noLines, 400, 'shopify_payload_invalid');
    assert.match(noLines.json().message, /line_items/);
    const hugeAddress = await webhook('orders/create', {
      ...payload,
      shipping_address: { ...payload.shipping_address, address1: 'x'.repeat(1024 * 1024) },
    });
    assert.ok([400, 413].includes(hugeAddress.statusCode), hugeAddress.body);
    const lines = Array.from({ length: 50_000 }, () => ({ sku: products(t).protector, quantity: 1 }));
    const tooMany = await webhook('orders/create', { ...payload, line_items: lines });
    assert.ok([400, 413].includes(tooMany.statusCode), tooMany.body);
    assert.equal(await inboxCount(), n);
  });

  it('publishes a design as one product with a variant per model and the mockups as media, and updates it again', async () => {
    const p = products(t);
    const iphone16 =
      t.seed.organizations[0].products!.find((x) => x.name === 'iPhone 16 Clear Case')?.reference ?? p.leather;
    const refs = [p.clear, iphone16];
    const res = await call(t, 'POST', `/v2/stores/${storeRef}/shopify/publications`, {
      body: { publication: { imageReference: image, productReferences: refs, priceCents: 2995, title: 'Sunset case' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.publication.status, 'publishing');
    await t.s.worker.drain();
    const [pub] = (await call(t, 'GET', `/v2/stores/${storeRef}/shopify/publications`)).data.publications;
    assert.equal(pub.status, 'published', JSON.stringify(await t.s.storefronts.operations(storeRef, null, 3)));
    assert.match(pub.shopifyProductId, /^gid:\/\/shopify\/Product\//);
    const set = shopify.calls.filter((c) => c.operation === 'ProductSet');
    assert.equal(set.length, 1);
    const input = set[0].variables.input;
    assert.deepEqual(
      input.variants.map((v: any) => v.sku),
      refs.map((r) => `${r}.${image}`),
    );
    assert.equal(input.variants[0].price, '29.95');
    assert.ok(input.files.length >= 2, 'a mockup per model at least');
    assert.ok(pub.mediaCount >= 2);
    const media = [...shopify.uploads.values()];
    assert.equal(media.length, input.files.length);
    // The published product's first image, as the merchant's shop shows it.
    mkdirSync('test-artifacts/shopify', { recursive: true });
    const png = await sharp(media[0]).png().toBuffer();
    writeFileSync('test-artifacts/shopify/published-product-media.png', png);
    assert.ok((await sharp(png).metadata()).width! >= 600);

    // Publishing the same artwork again updates the same Shopify product.
    await call(t, 'POST', `/v2/stores/${storeRef}/shopify/publications`, {
      body: { publication: { imageReference: image, productReferences: refs, priceCents: 3495, title: 'Sunset case' } },
    });
    await t.s.worker.drain();
    const again = shopify.calls.filter((c) => c.operation === 'ProductSet');
    assert.equal(again.length, 2);
    assert.deepEqual(again[1].variables.identifier, { id: pub.shopifyProductId });
    const del = await call(t, 'DELETE', `/v2/stores/${storeRef}/shopify/publications/${pub.reference}`);
    assert.equal(del.statusCode, 200, del.body);
    await t.s.worker.drain();
    assert.equal(shopify.calls.at(-1)?.operation, 'ProductStatusUpdate');
    assert.equal(shopify.calls.at(-1)?.variables.product.status, 'ARCHIVED');
    assert.deepEqual(shopify.invalid, []);
    const apiStore = t.seed.organizations[0].stores.find((x) => x.integration === 'api')!.reference;
    const notShopify = await call(t, 'POST', `/v2/stores/${apiStore}/shopify/publications`, {
      body: { publication: { imageReference: image, productReferences: refs, priceCents: 100, title: 'x' } },
    });
    expectError(notShopify, 409, 'store_not_shopify');
    // Another organization's store, or no store at all, is not found: never "not on Shopify".
    const foreign = t.seed.organizations[1].stores[0].reference;
    for (const ref of [foreign, 'Store_doesnotexist', 'Brand_x'])
      expectError(await call(t, 'GET', `/v2/stores/${ref}/shopify/publications`), 404, 'not_found');
  });

  it('never writes an access token to the server log or the request log', async () => {
    const lines: string[] = [];
    const log = createLogger({ logLevel: 'info' }, { write: (l: string) => lines.push(l) } as never);
    const token = 'shpat_0123456789abcdef';
    log.info(
      { accessToken: token, res: { access_token: token }, call: { headers: { 'x-shopify-access-token': token } } },
      'call',
    );
    assert.ok(lines.length === 1 && !lines[0].includes(token), lines[0]);
    assert.ok(!JSON.stringify(redact({ access_token: token, accessToken: token })).includes(token));
  });
});

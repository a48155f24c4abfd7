import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { shopifyApp } from '../../src/modules/storefronts/shopify/app.ts';
import { SHOPIFY_API_VERSION } from '../../src/modules/storefronts/shopify/version.ts';

const SECRET = 'shopify-app-secret';
const app = shopifyApp(
  { apiKey: 'app-key', apiSecret: SECRET, scopes: ['read_orders'], publicBaseUrl: 'https://pod.example' },
  fetch,
);
const body = JSON.stringify({ id: 1, name: '#1001', note: 'ü ✓' });
const signed = (raw: string, secret = SECRET) => createHmac('sha256', secret).update(raw).digest('base64');
const headers = (raw = body): Record<string, string> => ({
  'x-shopify-topic': 'orders/create',
  'x-shopify-shop-domain': 'Case-Lovers.myshopify.com',
  'x-shopify-api-version': SHOPIFY_API_VERSION,
  'x-shopify-webhook-id': 'w-1',
  'x-shopify-hmac-sha256': signed(raw),
});
const without = (name: string) => Object.fromEntries(Object.entries(headers()).filter(([k]) => k !== name));

describe('Shopify webhook signatures', () => {
  it('takes a webhook signed over its raw body, keyed by its event id, else its webhook id', async () => {
    assert.deepEqual(await app.verifyWebhook(body, headers()), {
      ok: true,
      webhook: { topic: 'orders/create', shop: 'case-lovers.myshopify.com', deliveryKey: 'w-1' },
    });
    const withEvent = await app.verifyWebhook(body, { ...headers(), 'x-shopify-event-id': 'e-1' });
    assert.equal(withEvent.ok && withEvent.webhook.deliveryKey, 'e-1');
  });

  it('refuses a changed body, another secret, a hex signature, a missing header and a foreign shop', async () => {
    const refused = async (raw: string, h: Record<string, string>) => {
      const r = await app.verifyWebhook(raw, h);
      assert.equal(r.ok, false, JSON.stringify(h));
      return r.ok ? '' : r.reason;
    };
    assert.equal(await refused(`${body} `, headers()), 'invalid_hmac');
    assert.equal(
      await refused(body, { ...headers(), 'x-shopify-hmac-sha256': signed(body, 'another-secret') }),
      'invalid_hmac',
    );
    const hex = createHmac('sha256', SECRET).update(body).digest('hex');
    assert.equal(await refused(body, { ...headers(), 'x-shopify-hmac-sha256': hex }), 'invalid_hmac');
    assert.equal(await refused(body, { ...headers(), 'x-shopify-hmac-sha256': `${signed(body)}x` }), 'invalid_hmac');
    for (const name of ['x-shopify-topic', 'x-shopify-shop-domain', 'x-shopify-api-version', 'x-shopify-webhook-id'])
      assert.equal(await refused(body, without(name)), 'missing_headers', name);
    assert.equal(
      await refused(body, { ...headers(), 'x-shopify-shop-domain': 'case-lovers.example.com' }),
      'invalid_shop',
    );
    // No signature, or no body: Shopify's library says so.
    assert.equal(await refused(body, without('x-shopify-hmac-sha256')), 'missing_hmac');
    assert.equal(await refused('', headers('')), 'missing_body');
  });
});

/**
 * Records src/openapi/examples.json: one realistic request body and success response per
 * operation of the OpenAPI document, plus one representative error, captured from a test app
 * that runs the whole integration flow (image, quote, order, production, shipment, claims,
 * renders, webhooks). The document attaches them at build time (src/openapi/examples.ts) and
 * test/platform/openapi-examples.test.ts validates them against the schemas.
 *
 *   npx tsx scripts/capture-openapi-examples.ts
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import sharp from 'sharp';
import { ManualClock } from '../src/platform/clock.ts';
import { EXAMPLES_FILE, type OperationExamples } from '../src/openapi/examples.ts';
import { type TestApp, call, createTestApp } from '../test/support/app.ts';
import { startReceiver } from '../test/webhooks/receiver.ts';
import { ADDRESS } from '../examples/integration.ts';
import { captureBilling } from './capture-billing-examples.ts';
import { captureShopify } from './capture-shopify-examples.ts';
import { capturePhotoScenes } from './capture-photo-scene-examples.ts';

/** Captured bodies are untyped JSON. */
type Json = any;

const WEBHOOK_URL = 'https://partner.example.com/webhooks/pod';
const SECRET_PLACEHOLDER = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const REQUEST_ID = '8c0d2f4e-6b1a-4c39-9e57-2d3f1a6b7c90';
const MISSING = (prefix: string) => `${prefix}_0000000000000000000000zzzz`;

/** Long lists make a reference page unreadable: two items show the shape. */
function shorten(value: Json): Json {
  if (Array.isArray(value)) return value.slice(0, 2).map(shorten);
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value))
      out[k] = k === 'secret' && typeof v === 'string' ? SECRET_PLACEHOLDER : shorten(v);
    return out;
  }
  return value;
}

class Recorder {
  readonly examples: Record<string, OperationExamples> = {};
  constructor(
    private readonly t: TestApp,
    private readonly receiverUrl: () => string,
  ) {}

  /** Sends a request and records it under `operationId`: the first success and the first error. */
  async send(
    operationId: string,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    opts: Parameters<typeof call>[3] = {},
    expect?: number,
  ) {
    // A fixed request id keeps the recorded file stable from one capture to the next.
    const res = await call(this.t, method, url, { ...opts, headers: { 'x-request-id': REQUEST_ID, ...opts.headers } });
    if (expect !== undefined && res.statusCode !== expect) {
      throw new Error(
        `${operationId} ${method} ${url}: expected ${expect}, got ${res.statusCode} ${res.body.slice(0, 300)}`,
      );
    }
    const entry = (this.examples[operationId] ??= { responses: {} });
    const status = String(res.statusCode);
    const success = res.statusCode < 300;
    const isJson = String(res.headers['content-type'] ?? '').startsWith('application/json');
    if (success && opts.body !== undefined && entry.request === undefined) entry.request = this.clean(opts.body);
    const hasError = Object.keys(entry.responses).some((s) => Number(s) >= 400);
    if (isJson && entry.responses[status] === undefined && (success || !hasError))
      entry.responses[status] = this.clean(res.data);
    return res;
  }

  private clean(body: Json): Json {
    const text = JSON.stringify(shorten(body)).split(this.receiverUrl()).join(WEBHOOK_URL);
    return JSON.parse(text);
  }
}

async function png(width: number, height: number, r: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g: 90, b: 220 - r } } })
    .png()
    .toBuffer();
}

export async function capture(): Promise<Record<string, OperationExamples>> {
  const clock = new ManualClock(new Date('2026-03-02T09:30:00Z'));
  // URLs in the examples (tracking pages, media, evidence files) point at a public-looking host.
  const t = await createTestApp({ clock, env: { PUBLIC_BASE_URL: 'https://api.example.com' } });
  const receiver = await startReceiver();
  const r = new Recorder(t, () => receiver.url);
  try {
    const org = t.seed.organizations[0];
    const storeReference = org.stores.find((s) => s.code === 'DEMO1')?.reference;
    const productReference = org.products?.find((p) => p.name === 'iPhone 15 Clear Case')?.reference;
    const compositionReference = t.seed.rendering?.compositions['demo-studio-ip15'];
    if (!storeReference || !productReference || !compositionReference)
      throw new Error('the demo seed lacks DEMO1, iPhone 15 Clear Case or demo-studio-ip15');

    // Organization and catalog reads.
    await r.send('validateAuth', 'POST', '/v2/auth/validate', {}, 200);
    await r.send('validateAuth', 'POST', '/v2/auth/validate', { key: 'sk_test_wrong' }, 401);
    await r.send('getOrganization', 'GET', '/v2/organization', {}, 200);
    await r.send('getOrganization', 'GET', '/v2/organization', { key: null }, 401);
    for (const [id, path, prefix] of [
      ['Accounts', 'accounts', 'Account'],
      ['Stores', 'stores', 'Store'],
      ['Brands', 'brands', 'Brand'],
    ] as const) {
      const list = await r.send(`list${id}`, 'GET', `/v2/${path}?limit=2`, {}, 200);
      await r.send(`list${id}`, 'GET', `/v2/${path}?limit=0`, {}, 400);
      const first = list.data[path][0].reference;
      await r.send(`get${id.slice(0, -1)}`, 'GET', `/v2/${path}/${first}`, {}, 200);
      await r.send(`get${id.slice(0, -1)}`, 'GET', `/v2/${path}/${MISSING(prefix)}`, {}, 404);
    }
    for (const [id, path] of [
      ['listProducts', 'products'],
      ['listProductgroups', 'productgroups'],
      ['listPackagings', 'packagings'],
      ['listItems', 'items'],
    ] as const) {
      await r.send(id, 'GET', `/v2/${path}?limit=2`, {}, 200);
      await r.send(id, 'GET', `/v2/${path}?cursor=not-a-cursor`, {}, 400);
    }
    await r.send('getProduct', 'GET', `/v2/products/${productReference}`, {}, 200);
    await r.send('getProduct', 'GET', `/v2/products/${MISSING('Product')}`, {}, 404);
    await r.send('getProductMedia', 'GET', `/v2/products/${productReference}/media/${MISSING('missing')}.png`, {}, 404);
    // Before the SKU cutover a product's legacy SKU is its item's warehouse SKU.
    await r.send(
      'lookupProductReferenceByLegacySku',
      'GET',
      '/v2/utilities/lookup-product-reference-by-legacy-sku?legacyItemSku=CASE-IP15-CLR',
      {},
      200,
    );
    await r.send(
      'lookupProductReferenceByLegacySku',
      'GET',
      '/v2/utilities/lookup-product-reference-by-legacy-sku?legacyItemSku=NO-SUCH-SKU',
      {},
      404,
    );

    // Images and evidence.
    const artwork = await png(600, 1200, 40);
    const image = await r.send(
      'uploadImage',
      'POST',
      '/v2/images',
      { payload: artwork, headers: { 'content-type': 'application/octet-stream' } },
      200,
    );
    await r.send('uploadImage', 'POST', '/v2/images', {
      payload: Buffer.from('not an image'),
      headers: { 'content-type': 'application/octet-stream' },
    });
    const imageReference = image.data.image.reference;
    await r.send('listImages', 'GET', '/v2/images?limit=2', {}, 200);
    await r.send('listImages', 'GET', '/v2/images?limit=1000', {}, 400);
    await r.send('getImage', 'GET', `/v2/images/${imageReference}`, {}, 200);
    await r.send('getImage', 'GET', `/v2/images/${MISSING('Image')}`, {}, 404);

    // Quote and orders.
    const orderline = {
      productReference,
      imageReference,
      quantity: 2,
      annotations: [{ key: 'source', value: 'shop-42' }],
    };
    await r.send(
      'quoteShipping',
      'POST',
      '/v2/quote',
      {
        body: {
          quote: {
            storeReference,
            shippingKind: 'dropship',
            dropshipAddress: ADDRESS,
            orderlines: [{ productReference, quantity: 2 }],
          },
        },
      },
      200,
    );
    await r.send('quoteShipping', 'POST', '/v2/quote', {
      body: { quote: { storeReference, shippingKind: 'dropship', orderlines: [] } },
    });
    const placeOrder = async (customIdentifier: string) => {
      const body = {
        order: {
          storeReference,
          shippingKind: 'dropship',
          customIdentifier,
          dropshipAddress: ADDRESS,
          dropshipMinimalShippingLevel: 'tracked',
          orderlines: [orderline],
        },
      };
      return (await r.send('createOrder', 'POST', '/v2/orders', { body }, 200)).data.order.reference as string;
    };
    const first = await placeOrder('shop-42-order-1001');
    await r.send(
      'createOrder',
      'POST',
      '/v2/orders',
      { body: { order: { storeReference, shippingKind: 'dropship', orderlines: [orderline] } } },
      400,
    );
    await r.send('listOrders', 'GET', '/v2/orders?limit=2', {}, 200);
    await r.send('listOrders', 'GET', '/v2/orders?status=nonsense', {}, 400);
    await r.send('getOrder', 'GET', `/v2/orders/${first}`, {}, 200);
    await r.send('getOrder', 'GET', `/v2/orders/${MISSING('Order')}`, {}, 404);
    await r.send(
      'lookupOrderByCustomIdentifier',
      'GET',
      '/v2/utilities/lookup-order-reference-by-custom-identifier?customIdentifier=shop-42-order-1001',
      {},
      200,
    );
    await r.send(
      'lookupOrderByCustomIdentifier',
      'GET',
      '/v2/utilities/lookup-order-reference-by-custom-identifier?customIdentifier=unknown',
      {},
      404,
    );
    await r.send(
      'cancelOrderlines',
      'POST',
      `/v2/orders/${first}/cancel`,
      { body: { orderlines: [{ index: 1, canceledQuantity: 1 }] } },
      204,
    );
    await r.send(
      'cancelOrderlines',
      'POST',
      `/v2/orders/${first}/cancel`,
      { body: { orderlines: [{ index: 1, canceledQuantity: 0 }] } },
      409,
    );
    await r.send(
      'changeDropshipAddress',
      'PUT',
      `/v2/orders/${first}/dropship-address`,
      { body: { dropshipAddress: { ...ADDRESS, city: 'Utrecht', zipcode: '3511 AA' } } },
      204,
    );
    await r.send(
      'changeDropshipAddress',
      'PUT',
      `/v2/orders/${MISSING('Order')}/dropship-address`,
      { body: { dropshipAddress: ADDRESS } },
      404,
    );
    const addressReference = (await call(t, 'GET', `/v2/orders/${first}`)).data.order.dropshipAddressReference;
    await r.send('getAddress', 'GET', `/v2/addresses/${addressReference}`, {}, 200);
    await r.send('getAddress', 'GET', `/v2/addresses/${MISSING('Address')}`, {}, 404);

    // Production and shipment (shipped ten days ago, so claims may be filed).
    const ship = async (customIdentifier: string) => {
      const order = await placeOrder(customIdentifier);
      await r.send('testStartProduction', 'POST', `/v2/test-helpers/orders/${order}/start-production`, {}, 204);
      const shippedAt = new Date(clock.now().getTime() - 10 * 86_400_000).toISOString();
      const res = await r.send(
        'testCreateShipment',
        'POST',
        '/v2/test-helpers/shipments',
        { body: { shipment: { orderReferences: [order], shippedAt } } },
        200,
      );
      return { order, shipment: res.data.shipment.reference as string };
    };
    const shipped = await ship('shop-42-order-1002');
    await r.send('testStartProduction', 'POST', `/v2/test-helpers/orders/${shipped.order}/start-production`, {}, 409);
    await r.send(
      'testCreateShipment',
      'POST',
      '/v2/test-helpers/shipments',
      { body: { shipment: { orderReferences: [] } } },
      400,
    );
    const leftAt = (hours: number) => new Date(clock.now().getTime() - (10 * 24 - hours) * 3600_000).toISOString();
    await r.send(
      'testAddTrackingEvents',
      'POST',
      `/v2/test-helpers/shipments/${shipped.shipment}/tracking-events`,
      {
        body: {
          trackingEvents: [
            { status: 'in_transit', occurred: leftAt(3), location: 'Amsterdam, NL' },
            { status: 'out_for_delivery', occurred: leftAt(26), location: 'Berlin, DE' },
            { status: 'delivered', occurred: leftAt(31), description: 'Delivered to the recipient' },
          ],
        },
      },
      200,
    );
    await r.send(
      'testAddTrackingEvents',
      'POST',
      `/v2/test-helpers/shipments/${shipped.shipment}/tracking-events`,
      { body: { trackingEvent: { status: 'in_transit', occurred: leftAt(-1) } } },
      400,
    );
    await r.send('getShipment', 'GET', `/v2/shipments/${shipped.shipment}`, {}, 200);
    await r.send('getShipment', 'GET', `/v2/shipments/${MISSING('Shipment')}`, {}, 404);

    // Claims.
    const evidence = await r.send(
      'uploadEvidence',
      'POST',
      '/v2/evidence',
      { payload: await png(400, 300, 120), headers: { 'content-type': 'application/octet-stream' } },
      200,
    );
    await r.send('uploadEvidence', 'POST', '/v2/evidence', {
      payload: Buffer.from('not an image'),
      headers: { 'content-type': 'application/octet-stream' },
    });
    const categories = await r.send('listClaimcategories', 'GET', '/v2/claimcategories', {}, 200);
    await r.send('listClaimcategories', 'GET', '/v2/claimcategories', { key: null }, 401);
    const damaged =
      categories.data.claimcategories.find((c: Json) => /damage/i.test(c.name)) ??
      categories.data.claimcategories.find((c: Json) => !/package missing/i.test(c.name));
    const claimlines = [
      {
        orderlineIndex: 1,
        quantity: 1,
        claimcategoryReference: damaged.reference,
        evidenceReferences: [evidence.data.evidence.reference],
      },
    ];
    const claim = await r.send(
      'claimItemIssues',
      'POST',
      '/v2/claim-item-issues',
      {
        body: {
          claim: {
            shipmentReference: shipped.shipment,
            orderReference: shipped.order,
            comment: 'One case arrived with a cracked corner.',
            claimlines,
          },
        },
      },
      200,
    );
    await r.send(
      'claimItemIssues',
      'POST',
      '/v2/claim-item-issues',
      {
        body: {
          claim: {
            shipmentReference: shipped.shipment,
            orderReference: shipped.order,
            claimlines: [{ ...claimlines[0], quantity: 5 }],
          },
        },
      },
      400,
    );
    const claimReference = claim.data.claim.reference;
    await r.send('listClaims', 'GET', '/v2/claims?limit=2', {}, 200);
    await r.send('listClaims', 'GET', '/v2/claims?closedAfter=yesterday', {}, 400);
    await r.send('getClaim', 'GET', `/v2/claims/${claimReference}`, {}, 200);
    await r.send('getClaim', 'GET', `/v2/claims/${MISSING('Claim')}`, {}, 404);
    const decision = {
      decision: {
        status: 'resolved',
        refundShippingCosts: false,
        comment: 'A replacement is on its way.',
        claimlines: [
          { orderlineIndex: 1, replacementQuantity: 1, refundQuantity: 0, rejectionQuantity: 0, comment: 'Replaced' },
        ],
      },
    };
    await r.send(
      'testDecideClaim',
      'POST',
      `/v2/test-helpers/claims/${claimReference}/decide`,
      { body: decision },
      204,
    );
    await r.send(
      'testDecideClaim',
      'POST',
      `/v2/test-helpers/claims/${MISSING('Claim')}/decide`,
      { body: decision },
      404,
    );
    const second = await ship('shop-42-order-1003');
    const missing = await r.send(
      'claimPackageMissing',
      'POST',
      '/v2/claim-package-missing',
      { body: { claim: { shipmentReference: second.shipment } } },
      200,
    );
    await r.send(
      'claimPackageMissing',
      'POST',
      '/v2/claim-package-missing',
      { body: { claim: { shipmentReference: MISSING('Shipment') } } },
      404,
    );
    await r.send('retractClaim', 'POST', `/v2/claims/${missing.data.claim.reference}/retract`, {}, 204);
    await r.send('retractClaim', 'POST', `/v2/claims/${claimReference}/retract`, {}, 409);

    // Renders.
    const composition = await r.send('getComposition', 'GET', `/v2/compositions/${compositionReference}`, {}, 200);
    await r.send('getComposition', 'GET', `/v2/compositions/${MISSING('Composition')}`, {}, 404);
    const c = composition.data.composition;
    const scenes = await r.send('listScenes', 'GET', '/v2/scenes', {}, 200);
    await r.send('listScenes', 'GET', `/v2/scenes?productgroupReference=${MISSING('Productgroup')}`);
    const sceneReference = c.sceneReference ?? scenes.data.scenes[0].reference;
    await r.send('getScene', 'GET', `/v2/scenes/${sceneReference}`, {}, 200);
    await r.send('getScene', 'GET', `/v2/scenes/${MISSING('Scene')}`, {}, 404);
    const perspectives = await r.send(
      'listPerspectives',
      'GET',
      `/v2/perspectives?sceneReference=${sceneReference}&productReference=${productReference}`,
      {},
      200,
    );
    await r.send('listPerspectives', 'GET', `/v2/perspectives?sceneReference=${MISSING('Scene')}`);
    const perspectiveReference = c.perspectiveReference ?? perspectives.data.perspectives[0].reference;
    await r.send('getPerspective', 'GET', `/v2/perspectives/${perspectiveReference}`, {}, 200);
    await r.send('getPerspective', 'GET', `/v2/perspectives/${MISSING('Perspective')}`, {}, 404);
    await r.send(
      'lookupComposition',
      'GET',
      `/v2/lookup-composition?sceneReference=${sceneReference}&productReference=${productReference}&perspectiveReference=${perspectiveReference}`,
      {},
      200,
    );
    await r.send(
      'lookupComposition',
      'GET',
      `/v2/lookup-composition?sceneReference=${MISSING('Scene')}&productReference=${productReference}&perspectiveReference=${perspectiveReference}`,
      {},
      404,
    );
    await r.send('getRendertokens', 'GET', '/v2/rendertokens', {}, 200);
    await r.send('getRendertokens', 'GET', '/v2/rendertokens', { key: null }, 401);
    const render = await r.send(
      'createRender',
      'POST',
      '/v2/renders',
      { body: { render: { compositionReference, imageReference } } },
      200,
    );
    await r.send('createRender', 'POST', '/v2/renders', {
      body: { render: { compositionReference, imageReference: MISSING('Image') } },
    });
    const renderReference = render.data.render.reference;
    await r.send(
      'previewRender',
      'POST',
      '/v2/renders/preview',
      { body: { preview: { compositionReference, imageReference } } },
      200,
    );
    await r.send('previewRender', 'POST', '/v2/renders/preview', {
      body: { preview: { compositionReference, imageReference: MISSING('Image') } },
    });
    // Before the worker runs, the downloads answer 202 (not complete yet).
    await r.send('downloadRenderMedia', 'GET', `/v2/renders/${renderReference}/media`, {}, 202);
    await r.send('downloadRenderThumbnail', 'GET', `/v2/renders/${renderReference}/thumbnail`, {}, 202);
    await t.s.worker.drain();
    await r.send('downloadRenderMedia', 'GET', `/v2/renders/${renderReference}/media`, {}, 200);
    await r.send('downloadRenderMedia', 'GET', `/v2/renders/${MISSING('Render')}/media`, {}, 404);
    await r.send('downloadRenderThumbnail', 'GET', `/v2/renders/${renderReference}/thumbnail`, {}, 200);
    await r.send('downloadRenderThumbnail', 'GET', `/v2/renders/${MISSING('Render')}/thumbnail`, {}, 404);
    await r.send('listRenders', 'GET', '/v2/renders?limit=2', {}, 200);
    await r.send('listRenders', 'GET', '/v2/renders?status=nonsense', {}, 400);
    await r.send('getRender', 'GET', `/v2/renders/${renderReference}`, {}, 200);
    await r.send('getRender', 'GET', `/v2/renders/${MISSING('Render')}`, {}, 404);

    // Webhooks: an endpoint, a test delivery, the events of the flow above.
    const endpoint = await r.send(
      'createWebhookEndpoint',
      'POST',
      '/v2/webhook-endpoints',
      {
        body: {
          webhookEndpoint: {
            url: receiver.url,
            eventTypes: ['order.created', 'shipment.created'],
            description: 'Order sync',
          },
        },
      },
      200,
    );
    await r.send(
      'createWebhookEndpoint',
      'POST',
      '/v2/webhook-endpoints',
      { body: { webhookEndpoint: { url: 'ftp://example.com', eventTypes: ['order.created'] } } },
      400,
    );
    const endpointReference = endpoint.data.webhookEndpoint.reference;
    await r.send('listWebhookEndpoints', 'GET', '/v2/webhook-endpoints?limit=2', {}, 200);
    await r.send('listWebhookEndpoints', 'GET', '/v2/webhook-endpoints?limit=0', {}, 400);
    await r.send('getWebhookEndpoint', 'GET', `/v2/webhook-endpoints/${endpointReference}`, {}, 200);
    await r.send('getWebhookEndpoint', 'GET', `/v2/webhook-endpoints/${MISSING('Webhookendpoint')}`, {}, 404);
    await r.send(
      'updateWebhookEndpoint',
      'PATCH',
      `/v2/webhook-endpoints/${endpointReference}`,
      { body: { webhookEndpoint: { description: 'Order and shipment sync' } } },
      200,
    );
    await r.send(
      'updateWebhookEndpoint',
      'PATCH',
      `/v2/webhook-endpoints/${MISSING('Webhookendpoint')}`,
      { body: { webhookEndpoint: { enabled: false } } },
      404,
    );
    await r.send('testWebhookEndpoint', 'POST', `/v2/webhook-endpoints/${endpointReference}/test`, {}, 200);
    await r.send('testWebhookEndpoint', 'POST', `/v2/webhook-endpoints/${MISSING('Webhookendpoint')}/test`, {}, 404);
    await t.s.worker.drain();
    await r.send(
      'rotateWebhookEndpointSecret',
      'POST',
      `/v2/webhook-endpoints/${endpointReference}/rotate-secret`,
      {},
      200,
    );
    await r.send(
      'rotateWebhookEndpointSecret',
      'POST',
      `/v2/webhook-endpoints/${MISSING('Webhookendpoint')}/rotate-secret`,
      {},
      404,
    );
    const deliveries = await r.send(
      'listWebhookDeliveries',
      'GET',
      `/v2/webhook-deliveries?limit=2&endpointReference=${endpointReference}`,
      {},
      200,
    );
    await r.send('listWebhookDeliveries', 'GET', '/v2/webhook-deliveries?status=nonsense', {}, 400);
    const deliveryReference = deliveries.data.webhookDeliveries[0].reference;
    await r.send('getWebhookDelivery', 'GET', `/v2/webhook-deliveries/${deliveryReference}`, {}, 200);
    await r.send('getWebhookDelivery', 'GET', `/v2/webhook-deliveries/${MISSING('Webhookdelivery')}`, {}, 404);
    await r.send('resendWebhookDelivery', 'POST', `/v2/webhook-deliveries/${deliveryReference}/resend`, {}, 200);
    await r.send(
      'resendWebhookDelivery',
      'POST',
      `/v2/webhook-deliveries/${MISSING('Webhookdelivery')}/resend`,
      {},
      404,
    );
    const events = await r.send('listEvents', 'GET', '/v2/events?limit=2&type=order.created', {}, 200);
    await r.send('listEvents', 'GET', '/v2/events?createdAfter=yesterday', {}, 400);
    await r.send('getEvent', 'GET', `/v2/events/${events.data.events[0].reference}`, {}, 200);
    await r.send('getEvent', 'GET', `/v2/events/${MISSING('Event')}`, {}, 404);
    await r.send('deleteWebhookEndpoint', 'DELETE', `/v2/webhook-endpoints/${endpointReference}`, {}, 204);
    await r.send('deleteWebhookEndpoint', 'DELETE', `/v2/webhook-endpoints/${endpointReference}`, {}, 404);
    await t.s.worker.drain();

    await r.send(
      'testTriggerEvent',
      'POST',
      '/v2/test-helpers/events/trigger',
      { body: { event: { type: 'order.shipped' } } },
      200,
    );
    await r.send(
      'testTriggerEvent',
      'POST',
      '/v2/test-helpers/events/trigger',
      { body: { event: { type: 'order.lost' } } },
      400,
    );

    // Test clocks, last: they move this organization's time.
    await r.send('testGetClock', 'GET', '/v2/test-helpers/clock', {}, 200);
    await r.send('testGetClock', 'GET', '/v2/test-helpers/clock', { key: null }, 401);
    await r.send(
      'testAdvanceClock',
      'POST',
      '/v2/test-helpers/clock/advance',
      { body: { clock: { advanceBy: 'P1D' } } },
      200,
    );
    await r.send(
      'testAdvanceClock',
      'POST',
      '/v2/test-helpers/clock/advance',
      { body: { clock: { to: '2020-01-01T00:00:00Z' } } },
      400,
    );
    await r.send('testDeleteClock', 'DELETE', '/v2/test-helpers/clock', {}, 204);
    await r.send('testDeleteClock', 'DELETE', '/v2/test-helpers/clock', { key: null }, 401);
    return r.examples;
  } finally {
    await receiver.close();
    await t.close();
  }
}

const sorted = (examples: Record<string, OperationExamples>) =>
  Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)));

const examples = {
  ...(await capture()),
  ...(await captureShopify()),
  ...(await captureBilling()),
  ...(await capturePhotoScenes()),
};
writeFileSync(resolve(EXAMPLES_FILE), `${JSON.stringify(sorted(examples), null, 2)}\n`);
console.log(`${Object.keys(examples).length} operations recorded in ${EXAMPLES_FILE}`);

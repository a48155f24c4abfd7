/**
 * Records src/openapi/examples.json: one realistic request body and success response per
 * operation of the OpenAPI document, plus one representative error, captured from a test app
 * that runs the whole integration flow (image, quote, order, production, shipment, claims,
 * renders, webhooks). Each area of the flow is a file of scripts/openapi-examples/. The document
 * attaches them at build time (src/openapi/examples.ts) and test/platform/openapi-examples.test.ts
 * validates them against the schemas.
 *
 *   npx tsx scripts/capture-openapi-examples.ts
 */
import { ManualClock } from '../src/platform/clock.ts';
import { EXAMPLES_FILE } from '../src/openapi/examples.ts';
import { createTestApp } from '../test/support/app.ts';
import { startReceiver } from '../test/webhooks/receiver.ts';
import { captureBilling } from './capture-billing-examples.ts';
import { captureShopify } from './capture-shopify-examples.ts';
import { capturePhotoScenes } from './capture-photo-scene-examples.ts';
import { captureCatalog } from './openapi-examples/catalog.ts';
import { captureClaims } from './openapi-examples/claims.ts';
import { captureTestClock } from './openapi-examples/clock.ts';
import { captureImages } from './openapi-examples/images.ts';
import { captureOrders } from './openapi-examples/orders.ts';
import { type Examples, Recorder, writeExamples } from './openapi-examples/recorder.ts';
import { captureRenders } from './openapi-examples/renders.ts';
import { captureShipments } from './openapi-examples/shipments.ts';
import { captureWebhooks } from './openapi-examples/webhooks.ts';

/** The integration flow in order: each area starts from what the ones before it made. */
export async function capture(): Promise<Examples> {
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
    const flow = { t, clock, r, receiverUrl: receiver.url, storeReference, productReference, compositionReference };

    await captureCatalog(flow);
    const imageReference = await captureImages(flow);
    const placeOrder = await captureOrders(flow, imageReference);
    const { ship, shipped } = await captureShipments(flow, placeOrder);
    await captureClaims(flow, ship, shipped);
    await captureRenders(flow, imageReference);
    await captureWebhooks(flow);
    await captureTestClock(flow);
    return r.examples;
  } finally {
    await receiver.close();
    await t.close();
  }
}

const examples = writeExamples({
  ...(await capture()),
  ...(await captureShopify()),
  ...(await captureBilling()),
  ...(await capturePhotoScenes()),
});
console.log(`${Object.keys(examples).length} operations recorded in ${EXAMPLES_FILE}`);

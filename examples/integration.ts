/**
 * A whole integration in one script, against a running test-environment server:
 * upload an image, quote, order, simulate production and shipment with the test helpers, file a
 * claim, and render a mockup. Everything it needs (store, product, composition) is discovered
 * through the API, so it runs against any organization with an `api` store.
 *
 *   BASE_URL=http://127.0.0.1:3000 API_KEY=sk_test_… npm run example
 *
 * Optional: IMAGE_PATH (a JPEG/PNG to print; default a generated one), OUT_DIR (where the
 * rendered mockup is saved; default a temp folder), RENDER_POLL_SECONDS (default 60, the spec's
 * polling interval).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { ApiError, Client, type Render } from '../packages/sdk/src/index.ts';

export interface ExampleOptions {
  baseUrl: string;
  apiKey: string;
  imagePath?: string;
  outDir?: string;
  renderPollIntervalMs?: number;
  log?: (line: string) => void;
}

export interface ExampleResult {
  imageReference: string;
  quote: Array<{ level: string; price: number }>;
  orderReference: string;
  shipmentReference: string;
  trackingUrl: string | null;
  claimReference: string | null;
  renderReference: string | null;
  mockupPath: string | null;
  /** Steps left out because the server does not offer them (yet), with the reason. */
  skipped: string[];
}

/** The destination the example ships to; the OpenAPI examples use it too. */
export const ADDRESS = {
  firstname: 'Anna',
  lastname: 'Jansen',
  streetname: 'Prinsengracht',
  housenumber: '263',
  zipcode: '1016 GV',
  city: 'Amsterdam',
  countryCode: 'NL',
  email: 'anna@example.com',
  phonenumber: '+31 20 555 0101',
};

export async function main(opts: ExampleOptions): Promise<ExampleResult> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const client = new Client({
    apiKey: opts.apiKey,
    baseUrl: opts.baseUrl,
    renderPollIntervalMs: opts.renderPollIntervalMs,
  });
  const outDir = opts.outDir ?? mkdtempSync(join(tmpdir(), 'pod-example-'));
  const skipped: string[] = [];

  const { message } = await client.auth.validate();
  log(`key ok: ${message}`);

  // 1. Where to order: the first store that takes orders through the API, and a print product.
  let storeReference: string | undefined;
  for await (const store of client.stores.list()) {
    if (store.integration === 'api') {
      storeReference = store.reference;
      break;
    }
  }
  if (!storeReference) throw new Error('this organization has no store with integration "api"');
  // Prefer a product that can also be rendered as a mockup (a composition exists for it).
  const candidates: string[] = [];
  for await (const product of client.products.list({ limit: 100 })) {
    if (product.printable && product.status === 'launched' && product.print) candidates.push(product.reference);
    if (candidates.length >= 20) break;
  }
  if (candidates.length === 0) throw new Error('the catalog has no launched print product');
  let productReference = candidates[0];
  let compositionReference: string | null = null;
  for (const candidate of candidates) {
    compositionReference = await findComposition(client, candidate);
    if (compositionReference) {
      productReference = candidate;
      break;
    }
  }
  log(`store ${storeReference}, product ${productReference}`);

  // 2. Upload the artwork (from a path: the SDK streams the file and may re-send it on a retry).
  let imagePath = opts.imagePath;
  if (!imagePath) {
    imagePath = join(outDir, 'artwork.png');
    const hue = Math.floor(Math.random() * 200);
    writeFileSync(
      imagePath,
      await sharp({ create: { width: 600, height: 1200, channels: 3, background: { r: hue, g: 90, b: 220 - hue } } })
        .png()
        .toBuffer(),
    );
  }
  const { image } = await client.images.upload(imagePath);
  log(`image ${image.reference} (${image.width}x${image.height} ${image.format})`);

  // 3. Quote, then order at the cheapest level that has tracking.
  const { shippingOptions } = await client.orders.quote({
    quote: {
      storeReference,
      shippingKind: 'dropship',
      dropshipAddress: ADDRESS,
      orderlines: [{ productReference, quantity: 2 }],
    },
  });
  log(`quote: ${shippingOptions.map((o) => `${o.level} ${(o.price / 100).toFixed(2)} EUR`).join(', ')}`);
  const level = shippingOptions.find((o) => o.level !== 'basic')?.level ?? shippingOptions[0]?.level ?? 'basic';

  const { order } = await client.orders.create({
    order: {
      storeReference,
      shippingKind: 'dropship',
      customIdentifier: `example-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      dropshipAddress: ADDRESS,
      dropshipMinimalShippingLevel: level,
      orderlines: [
        {
          productReference,
          imageReference: image.reference,
          quantity: 2,
          annotations: [{ key: 'source', value: 'examples/integration.ts' }],
        },
      ],
    },
  });
  const placed = (await client.orders.get(order.reference)).order;
  log(
    `order ${placed.reference} (${placed.legacyOrderCode}) is ${placed.status.code}, total ${(placed.prices.total / 100).toFixed(2)} EUR`,
  );

  // 4. Test environment only: production starts and the parcel ships (ten days ago, so that a
  //    claim may be filed at once).
  await client.testHelpers.startProduction(order.reference);
  const shippedAt = new Date(Date.now() - 10 * 86_400_000).toISOString();
  const { shipment } = await client.testHelpers.createShipment({
    shipment: { orderReferences: [order.reference], shippedAt },
  });
  const shipped = (await client.shipments.get(shipment.reference)).shipment;
  log(
    `shipment ${shipped.reference}: ${shipped.level}${shipped.trackingUrl ? `, tracking ${shipped.trackingUrl}` : ''}`,
  );

  // 5. A claim for one damaged case, with a photo as evidence.
  const claimReference = await fileClaim(client, {
    order: order.reference,
    shipment: shipment.reference,
    evidence: imagePath,
    log,
    skipped,
  });

  // 6. A mockup of the artwork: find a composition for the product, render, download.
  let renderReference: string | null = null;
  let mockupPath: string | null = null;
  if (!compositionReference) {
    skipped.push('render: no composition exists for the product');
  } else {
    const render: Render = await client.renders.createAndWait({
      render: { compositionReference, imageReference: image.reference },
    });
    renderReference = render.reference;
    const media = await client.renders.downloadMedia(render.reference);
    mockupPath = join(outDir, `mockup.${render.media?.extension ?? 'bin'}`);
    await media.saveTo(mockupPath);
    log(`render ${render.reference} completed: ${mockupPath}`);
  }

  const limits = client.rateLimit?.limits.map((l) => `${l.name} ${l.remaining} left`).join(', ');
  if (limits) log(`rate limits: ${limits}`);
  for (const s of skipped) log(`skipped ${s}`);
  return {
    imageReference: image.reference,
    quote: shippingOptions,
    orderReference: order.reference,
    shipmentReference: shipment.reference,
    trackingUrl: shipped.trackingUrl ?? null,
    claimReference,
    renderReference,
    mockupPath,
    skipped,
  };
}

/** An item-issues claim for one damaged case, with a photo as evidence. */
async function fileClaim(
  client: Client,
  c: { order: string; shipment: string; evidence: string; log: (line: string) => void; skipped: string[] },
): Promise<string | null> {
  const { evidence } = await client.evidence.upload(c.evidence);
  // The category list is open: fetch it, never hard-code references.
  const { claimcategories } = await client.claimcategories.list();
  const category =
    claimcategories.find((k) => /damage/i.test(k.name)) ??
    claimcategories.find((k) => !/package missing/i.test(k.name));
  if (!category) {
    c.skipped.push('claim: no item-issue claim category');
    return null;
  }
  const { claim } = await client.claims.createItemIssues({
    claim: {
      shipmentReference: c.shipment,
      orderReference: c.order,
      comment: 'One case arrived with a cracked corner.',
      claimlines: [
        {
          orderlineIndex: 1,
          quantity: 1,
          claimcategoryReference: category.reference,
          evidenceReferences: [evidence.reference],
        },
      ],
    },
  });
  const filed = (await client.claims.get(claim.reference)).claim;
  c.log(`claim ${filed.reference} (${category.name}) is ${filed.status}, evidence ${evidence.reference}`);
  return claim.reference;
}

/** The first composition of (scene, perspective) that renders the product. */
async function findComposition(client: Client, productReference: string): Promise<string | null> {
  const { scenes } = await client.scenes.list();
  for (const scene of scenes) {
    const { perspectives } = await client.perspectives.list({ sceneReference: scene.reference, productReference });
    for (const perspective of perspectives) {
      try {
        const { composition } = await client.compositions.lookup({
          sceneReference: scene.reference,
          productReference,
          perspectiveReference: perspective.reference,
        });
        return composition.reference;
      } catch (err) {
        if (err instanceof ApiError && (err.status === 404 || err.status === 410)) continue;
        throw err;
      }
    }
  }
  return null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const baseUrl = process.env.BASE_URL;
  const apiKey = process.env.API_KEY;
  if (!baseUrl || !apiKey) {
    console.error('Set BASE_URL (e.g. http://127.0.0.1:3000) and API_KEY (a sk_test_… key of the test environment).');
    process.exit(2);
  }
  const pollSeconds = Number(process.env.RENDER_POLL_SECONDS ?? '60');
  if (!Number.isFinite(pollSeconds) || pollSeconds <= 0) {
    console.error(`RENDER_POLL_SECONDS must be a positive number of seconds, got "${process.env.RENDER_POLL_SECONDS}"`);
    process.exit(2);
  }
  main({
    baseUrl,
    apiKey,
    imagePath: process.env.IMAGE_PATH,
    outDir: process.env.OUT_DIR,
    renderPollIntervalMs: pollSeconds * 1000,
  })
    .then((result) => console.log(JSON.stringify(result, null, 2)))
    .catch((err) => {
      if (err instanceof ApiError)
        console.error(`${err.status} ${err.code}: ${err.message} (request ${err.requestId})`);
      else console.error(err);
      process.exit(1);
    });
}

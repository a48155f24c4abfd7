import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import { type Clock, ScopedClock } from './platform/clock.ts';
import { type TestClocksService, testClocksService } from './modules/testclocks/service.ts';
import type { Db } from './platform/db/index.ts';
import { KeyCache } from './platform/http/auth.ts';
import { Cursors } from './platform/http/pagination.ts';
import { ChangeFeed } from './platform/cache.ts';
import { Worker } from './platform/jobs/worker.ts';
import type { RateLimitStore } from './platform/ratelimit/index.ts';
import type { BlobStore } from './platform/storage.ts';
import { createBlobStore } from './platform/storage-s3.ts';
import { type OrganizationService, organizationService } from './modules/organization/service.ts';
import { registerMaintenanceJobs } from './modules/maintenance/jobs.ts';
import { eventsService } from './modules/webhooks/events.ts';
import { deliveryAttempts } from './modules/webhooks/delivery.ts';
import { registerWebhookJobs } from './modules/webhooks/jobs.ts';
import { productUpdatedListener } from './modules/webhooks/product-events.ts';
import { SecretBox } from './modules/webhooks/secrets.ts';
import { webhooksService } from './modules/webhooks/service.ts';
import { type ImagesService, imagesService } from './modules/images/service.ts';
import { type CatalogService, catalogService } from './modules/catalog/service.ts';
import { registerCatalogJobs } from './modules/catalog/jobs.ts';
import { renderingService } from './modules/rendering/service.ts';
import { registerRenderingJobs } from './modules/rendering/jobs.ts';
import { ordersService } from './modules/orders/service.ts';
import { billingService } from './modules/billing/service.ts';
import { shippingService } from './modules/shipping/service.ts';
import { shipmentsService } from './modules/shipments/service.ts';
import { carrierFor } from './modules/carriers/index.ts';
import { registerShipmentJobs } from './modules/shipments/jobs.ts';
import { registerCallbackJob } from './modules/orders/callback.ts';
import { claimsService } from './modules/claims/service.ts';
import { registerClaimsJobs } from './modules/claims/jobs.ts';
import { dashboardService } from './modules/dashboard/service.ts';
import { RequestLog } from './modules/requestlog/recorder.ts';
import { productionService } from './modules/production/service.ts';
import { type VatNumberChecker, noLiveVatCheck, viesChecker } from './modules/billing/vat-checker.ts';
import { registerProductionJobs } from './modules/production/jobs.ts';
import { storefrontsService } from './modules/storefronts/service.ts';
import { registerStorefrontJobs } from './modules/storefronts/jobs.ts';
import { shipmentEventsTap } from './modules/storefronts/tap.ts';
import type { FetchLike } from './modules/storefronts/shopify/client.ts';
import { upstreamOrders } from './modules/orders/upstream.ts';
import { wireEvents } from './events.ts';

export interface CoreDeps {
  config: Readonly<Config>;
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  rateLimits: RateLimitStore;
  secretKey: string;
  /** Defaults to the store chosen by BLOB_STORE (files under DATA_DIR/blobs, or S3). */
  blobs?: BlobStore;
  /** Defaults to VIES at VIES_URL, or no live check when it is unset. */
  vatChecker?: VatNumberChecker;
  /** How calls reach Shopify (default: the global fetch); tests point it at a local stand-in. */
  shopifyFetch?: FetchLike;
  /** Where calls to the carrier platform go (tests: a Sendcloud stand-in's fetch); default: fetch. */
  carrierFetch?: typeof fetch;
}

type Base = ReturnType<typeof platformParts>['base'];

/** The platform pieces every module is given: clocks, cursors, blobs, the job worker, the change feed. */
function platformParts(core: CoreDeps) {
  const { config, db, log } = core;
  // In the test environment an organization may run on its own test clock (testclocks module).
  let testClocks: TestClocksService | null = null;
  const clock: Clock =
    config.env === 'test' ? new ScopedClock(core.clock, (org) => testClocks?.timeOf(org) ?? null) : core.clock;
  const cursors = new Cursors(core.secretKey);
  const blobs = core.blobs ?? createBlobStore(config);
  const worker = new Worker({ db, clock, log }, { pools: config.jobConcurrency });
  const changes = new ChangeFeed(db);
  if (config.env === 'test') testClocks = testClocksService({ db, clock, worker, changes });
  return { base: { ...core, clock, blobs, cursors, worker, changes }, testClocks };
}

/** The events outbox and the webhook endpoints with their deliveries. */
function webhookParts(base: Base) {
  const { db, clock, config, log, cursors } = base;
  const events = eventsService({ clock });
  const webhookSecrets = new SecretBox(base.secretKey);
  const webhookAttempts = deliveryAttempts({ db, clock, config, box: webhookSecrets, log, events });
  const webhooks = webhooksService({
    db,
    clock,
    config,
    cursors,
    box: webhookSecrets,
    events,
    attempts: webhookAttempts,
    rateLimits: base.rateLimits,
  });
  return { events, webhookSecrets, webhookAttempts, webhooks };
}

/** Billing and orders, built together: a top-up releases the orders that waited for it. */
function moneyAndOrders(
  base: Base,
  m: Pick<ReturnType<typeof webhookParts>, 'events'> & {
    organization: OrganizationService;
    catalog: CatalogService;
    images: ImagesService;
  },
) {
  const { db, clock, config, cursors, changes } = base;
  const { organization, images, events, catalog } = m;
  const vatChecker =
    base.vatChecker ??
    (config.viesUrl
      ? viesChecker({
          url: config.viesUrl,
          requester: { prefix: config.seller.vatNumber.slice(0, 2), number: config.seller.vatNumber.slice(2) },
        })
      : noLiveVatCheck);
  const billing = billingService({
    db,
    clock,
    cursors,
    config,
    organization,
    vatChecker,
    // Called after a top-up commits, when `orders` exists.
    prepaidToppedUp: async (accountId) => {
      await orders.releasePrepaidHeld(accountId);
    },
  });
  const orders = ordersService({
    billing,
    db,
    clock,
    cursors,
    changes,
    organization,
    images,
    events,
    catalog,
  });
  return { billing, orders, shipping: shippingService() };
}

/** What happens after an order: Shopify stores, shipments, claims, rendering and production files. */
function fulfilmentParts(
  base: Base,
  m: ReturnType<typeof webhookParts> &
    ReturnType<typeof moneyAndOrders> & {
      organization: OrganizationService;
      catalog: CatalogService;
      images: ImagesService;
    },
) {
  const { db, clock, config, log, blobs, cursors, worker } = base;
  const { organization, catalog, images, events, orders, billing, shipping } = m;
  // --- storefronts: Shopify stores (orders in, fulfillments and products out) ---
  const storefronts = storefrontsService(
    {
      db,
      clock,
      log,
      worker,
      box: m.webhookSecrets,
      blobs,
      publicBaseUrl: config.publicBaseUrl,
      env: config.env,
      shopify: config.shopify,
      fetch: base.shopifyFetch ?? ((url, init) => fetch(url, init)),
      orders: upstreamOrders(db, orders),
      catalog,
      images,
      // Built further down (it needs nothing of this module); called only once jobs run.
      rendering: {
        productMockups: (...a) => rendering.productMockups(...a),
        preview: (...a) => rendering.preview(...a),
      },
    },
    organization,
  );
  const shipmentEvents = shipmentEventsTap(
    events,
    () => storefronts,
    async (ex, orgId, orderId) => (await orders.order(ex, orgId, orderId))?.storeId ?? null,
  );
  const shipments = shipmentsService({
    db,
    clock,
    config,
    blobs,
    organization,
    orders,
    events: shipmentEvents,
    carrier: carrierFor(config, base.carrierFetch),
    log: base.log,
  });
  const claims = claimsService({
    db,
    clock,
    cursors,
    blobs,
    config,
    log,
    orders,
    shipments,
    shipping,
    events,
    billing,
  });
  const rendering = renderingService({ db, clock, log, blobs, cursors, catalog, images, organization, events });
  // --- production files: print files, labels, packing slips ---
  const production = productionService({
    db,
    clock,
    blobs,
    config,
    organization,
    catalog,
    images,
    orders,
    shipments,
    billing,
  });
  return { storefronts, shipments, claims, rendering, production };
}

/**
 * Every service of the system, wired once; routes, jobs, the CLI and tests all use this.
 * Services are built in dependency order and get what they use passed in explicitly.
 */
export function createServices(core: CoreDeps) {
  const { config, db, log } = core;
  const { base, testClocks } = platformParts(core);
  const { clock, cursors, blobs, changes } = base;

  let keys: KeyCache | undefined;
  const organization = organizationService({ db, clock, config, cursors, changes, keys: () => keys! });
  keys = new KeyCache(organization.keyResolver, config.keyCacheTtlSeconds * 1000);

  // --- events and webhooks ---
  const hooks = webhookParts(base);
  const { events, webhooks, webhookAttempts } = hooks;
  const catalog = catalogService({ db, clock, log, cursors, blobs, config, changes, organization });
  const images = imagesService({ db, clock, cursors, blobs });
  // --- billing, orders, shipping ---
  const money = moneyAndOrders(base, { organization, catalog, images, events });
  const { billing, orders, shipping } = money;
  const { storefronts, shipments, claims, rendering, production } = fulfilmentParts(base, {
    ...hooks,
    ...money,
    organization,
    catalog,
    images,
  });

  // --- dashboard ---
  const dashboard = dashboardService({
    db,
    clock,
    organization,
    blobs,
    publicBaseUrl: config.publicBaseUrl,
    rateLimits: core.rateLimits,
    env: config.env,
  });
  const requestLog = new RequestLog({ db, log, recording: config.requestLog });

  const services = {
    ...base,
    keys,
    organization,
    events,
    webhooks,
    webhookAttempts,
    images,
    catalog,
    rendering,
    orders,
    shipping,
    shipments,
    claims,
    billing,
    dashboard,
    requestLog,
    testClocks,
    production,
    storefronts,
    // --- services above, listed here ---
  };

  registerMaintenanceJobs(services);
  // --- job registrations ---
  registerClaimsJobs(services);
  registerCallbackJob(services);
  registerRenderingJobs(services);
  registerCatalogJobs(services);
  registerWebhookJobs(services);
  registerProductionJobs(services);
  registerStorefrontJobs(services);
  // Who listens to whom: src/events.ts lists every subscription.
  wireEvents({
    catalog,
    orders,
    shipments,
    production,
    webhooks: { productUpdated: productUpdatedListener({ db, events, catalog, organization }) },
    storefronts,
  });
  registerShipmentJobs(services);

  return services;
}

export type Services = ReturnType<typeof createServices>;

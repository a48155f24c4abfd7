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
import { organizationService } from './modules/organization/service.ts';
import { registerMaintenanceJobs } from './modules/maintenance/jobs.ts';
import { eventsService } from './modules/webhooks/events.ts';
import { deliveryAttempts } from './modules/webhooks/delivery.ts';
import { registerWebhookJobs } from './modules/webhooks/jobs.ts';
import { productUpdatedListener } from './modules/webhooks/product-events.ts';
import { SecretBox } from './modules/webhooks/secrets.ts';
import { webhooksService } from './modules/webhooks/service.ts';
import { imagesService } from './modules/images/service.ts';
import { catalogService } from './modules/catalog/service.ts';
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

/**
 * Every service of the system, wired once; routes, jobs, the CLI and tests all use this.
 * Services are built in dependency order and get what they use passed in explicitly.
 */
export function createServices(core: CoreDeps) {
  const { config, db, log } = core;
  // In the test environment an organization may run on its own test clock (testclocks module).
  let testClocks: TestClocksService | null = null;
  const clock: Clock =
    config.env === 'test' ? new ScopedClock(core.clock, (org) => testClocks?.timeOf(org) ?? null) : core.clock;
  const cursors = new Cursors(core.secretKey);
  const blobs = core.blobs ?? createBlobStore(config);
  const worker = new Worker({ db, clock, log }, { pools: config.jobConcurrency });
  const changes = new ChangeFeed(db);
  const base = { ...core, clock, blobs, cursors, worker, changes };
  if (config.env === 'test') testClocks = testClocksService({ db, clock, worker, changes });

  let keys: KeyCache | undefined;
  const organization = organizationService({ db, clock, config, cursors, changes, keys: () => keys! });
  keys = new KeyCache(organization.keyResolver, config.keyCacheTtlSeconds * 1000);

  // --- events and webhooks ---
  const events = eventsService({ clock });
  const webhookSecrets = new SecretBox(core.secretKey);
  const webhookAttempts = deliveryAttempts({ db, clock, config, box: webhookSecrets, log, events });
  const webhooks = webhooksService({
    db,
    clock,
    config,
    cursors,
    box: webhookSecrets,
    events,
    attempts: webhookAttempts,
    rateLimits: core.rateLimits,
  });

  // --- catalog ---
  const catalog = catalogService({
    db,
    clock,
    cursors,
    blobs,
    config,
    changes,
    organization,
  });

  // --- images ---
  const images = imagesService({ db, clock, cursors, blobs });

  // --- billing: ledger, invoices ---
  const vatChecker =
    core.vatChecker ??
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

  // --- orders, shipping, shipments, callback ---
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
  const shipping = shippingService();

  // --- storefronts: Shopify stores (orders in, fulfillments and products out) ---
  const storefronts = storefrontsService(
    {
      db,
      clock,
      log,
      worker,
      box: webhookSecrets,
      blobs,
      publicBaseUrl: config.publicBaseUrl,
      env: config.env,
      shopify: config.shopify,
      fetch: core.shopifyFetch ?? ((url, init) => fetch(url, init)),
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
    async (ex, orgId, orderId) => (await orders.orderRow(ex, orgId, orderId))?.store_id ?? null,
  );
  const shipments = shipmentsService({
    db,
    clock,
    config,
    blobs,
    organization,
    orders,
    events: shipmentEvents,
    carrier: carrierFor(config, core.carrierFetch),
    log: core.log,
  });

  // --- claims ---
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

  // --- rendering ---
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

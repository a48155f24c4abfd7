import { ApiError } from '../../platform/errors.ts';
import type { OrganizationService } from '../organization/service.ts';
import { connecting } from './connect.ts';
import type { StorefrontsDeps } from './deps.ts';
import { fulfillmentHandlers, trackingInfoHandler } from './fulfillment.ts';
import { inbound } from './inbound.ts';
import { operations } from './operations.ts';
import { processing } from './process.ts';
import type { OrdersInMaking } from './inbound.ts';
import { publicationHandlers } from './publish-calls.ts';
import { publicationCalls, publishing } from './publish.ts';
import { storefrontsRepo as repo } from './repo.ts';
import type { ShopifyApp } from './shopify/app.ts';
import { shipmentHooks } from './shipments.ts';
import {
  type PrivacyRequest,
  type StorefrontConnection,
  type StorefrontOperation,
  type StorefrontWebhook,
  privacyRequest,
  storefrontConnection,
  storefrontOperation,
  storefrontWebhook,
} from './views.ts';

/**
 * The `storefronts` port: stores whose orders come from an upstream platform (Shopify). Inbound
 * webhooks, outbound operations, connecting and publishing compose here; the Shopify adapter lives
 * in ./shopify.
 */
export function storefrontsService(
  deps: StorefrontsDeps,
  organization: Pick<OrganizationService, 'createStore' | 'findStore'>,
) {
  let app: Promise<ShopifyApp> | null = null;
  const configured = (): Promise<ShopifyApp> => {
    if (!deps.shopify)
      throw new ApiError(
        'shopify_not_configured',
        'Shopify stores are not set up on this service (SHOPIFY_API_KEY, SHOPIFY_API_SECRET)',
      );
    // Shopify's library (~190 modules, ~0.2-0.5 s to load) is loaded by the first call that needs
    // it (a connect, a callback, a webhook): a service that no shop reaches never loads it.
    const cfg = { ...deps.shopify, publicBaseUrl: deps.publicBaseUrl };
    app ??= import('./shopify/app.ts').then((m) => m.shopifyApp(cfg, deps.fetch));
    return app;
  };
  const ops = operations(deps);
  fulfillmentHandlers(deps, ops);
  trackingInfoHandler(deps, ops);
  const making: OrdersInMaking = new Map();
  const inbox = inbound(deps, configured, making);
  const process = processing(deps, ops, making);
  const connect = connecting(deps, configured, ops, organization);
  publicationHandlers(deps, ops);
  const products = publishing(deps, ops, organization);

  return {
    configured: () => deps.shopify !== null,
    receiveWebhook: inbox.receiveWebhook,
    receiveNotification: inbox.receiveNotification,
    /**
     * A webhook that passed its checks, stored as the HTTP path would and processed at once, with no
     * job left behind (the demo seed loads its orders so, before any worker runs).
     */
    async ingest(storeId: string, topic: 'orders/create', deliveryKey: string, payload: unknown) {
      const conn = await repo.connectionOfStore(deps.db, storeId);
      if (!conn) throw new Error(`store ${storeId} has no storefront connection`);
      const stored = await inbox.store(conn, topic, deliveryKey, payload, false);
      if (!stored.duplicate) await process.run(stored.id);
      return stored;
    },
    processInbox: process.runJob,
    redactAgain: process.redactAgain,
    runOperation: ops.run,
    retryOperation: ops.retry,
    publish: products.publish,
    unpublish: products.unpublish,
    publishedProducts: products.list,
    productChanged: products.productChanged,
    publicationCalls: (storeId: string) => publicationCalls(deps.db, storeId),
    /** A published product's mockup as uploaded to Shopify (dashboard thumbnails). */
    async mediaOf(orgId: string, storeRef: string, publicationRef: string, n: number) {
      const conn = await repo.connectionOfStore(deps.db, storeRef);
      const row = conn?.organization_id === orgId ? await repo.productOf(deps.db, storeRef, publicationRef) : null;
      const m = row?.media[n];
      return m ? { bytes: await deps.blobs.get(m.blobKey), mimeType: `image/${m.blobKey.split('.').pop()}` } : null;
    },
    installUrl: connect.installUrl,
    completeConnect: connect.complete,
    async connection(storeId: string): Promise<StorefrontConnection | null> {
      const c = await repo.connectionOfStore(deps.db, storeId);
      return c && storefrontConnection(c);
    },
    /** The connection's row, for this module's tests. */
    connectionRow: (storeId: string) => repo.connectionOfStore(deps.db, storeId),
    async connections(orgId: string): Promise<StorefrontConnection[]> {
      return (await repo.connectionsOf(deps.db, orgId)).map(storefrontConnection);
    },
    async operations(storeId: string, status: 'failed' | null, limit = 50): Promise<StorefrontOperation[]> {
      return (await repo.operationsOf(deps.db, storeId, status, limit)).map(storefrontOperation);
    },
    async inbox(storeId: string, limit = 20): Promise<StorefrontWebhook[]> {
      return (await repo.recentInbox(deps.db, storeId, limit)).map(storefrontWebhook);
    },
    async privacyLog(storeId: string, limit = 20): Promise<PrivacyRequest[]> {
      return (await repo.privacyLog(deps.db, storeId, limit)).map(privacyRequest);
    },
    /** Connects a store to a shop without OAuth: the demo data's stand-in shop (no token, no calls). */
    async connectDemo(orgId: string, storeId: string, shop: string) {
      await repo.upsertConnection(deps.db, {
        store_id: storeId,
        organization_id: orgId,
        platform: 'shopify',
        shop_domain: shop,
        token_sealed: null,
        scopes: '',
        status: 'demo',
        fulfillment_service_id: null,
        location_id: null,
        connected_at: deps.clock.now(),
      });
    },

    ...shipmentHooks(ops),
  };
}

export type StorefrontsService = ReturnType<typeof storefrontsService>;

export type { ShippedOrder } from './shipments.ts';
export type { PublicationCall } from './publish.ts';
export type { PrivacyRequest, StorefrontConnection, StorefrontOperation, StorefrontWebhook } from './views.ts';

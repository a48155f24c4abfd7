import type { Executor } from '../../platform/db/index.ts';
import { ApiError } from '../../platform/errors.ts';
import type { OrganizationService } from '../organization/service.ts';
import { connecting } from './connect.ts';
import type { StorefrontsDeps } from './deps.ts';
import { fulfillmentHandlers, trackingInfoHandler } from './fulfillment.ts';
import { inbound } from './inbound.ts';
import { MAX_ATTEMPTS, operations } from './operations.ts';
import { processing } from './process.ts';
import { publishing } from './publish.ts';
import { storefrontsRepo as repo } from './repo.ts';
import { type ShopifyApp, shopifyApp } from './shopify/app.ts';

/** Shopify's fulfillment event statuses for the carrier tracking statuses this service records. */
const EVENT_STATUS: Record<string, string> = {
  in_transit: 'IN_TRANSIT',
  out_for_delivery: 'OUT_FOR_DELIVERY',
  delivered: 'DELIVERED',
  exception: 'FAILURE',
  returned: 'FAILURE',
};

/** A shipment as the shipments module announces it. */
export interface ShippedOrder {
  orderId: string;
  storeId: string;
  organizationId: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
}

/**
 * The `storefronts` port: stores whose orders come from an upstream platform (Shopify). Inbound
 * webhooks, outbound operations, connecting and publishing compose here; the Shopify adapter lives
 * in ./shopify.
 */
export function storefrontsService(
  deps: StorefrontsDeps,
  organization: Pick<OrganizationService, 'createStore' | 'findStore'>,
) {
  let app: ShopifyApp | null = null;
  const configured = () => {
    if (!deps.shopify)
      throw new ApiError(
        'shopify_not_configured',
        'Shopify stores are not set up on this service (SHOPIFY_API_KEY, SHOPIFY_API_SECRET)',
      );
    app ??= shopifyApp({ ...deps.shopify, publicBaseUrl: deps.publicBaseUrl }, deps.fetch);
    return app;
  };
  const ops = operations(deps);
  fulfillmentHandlers(deps, ops);
  trackingInfoHandler(deps, ops);
  const inbox = inbound(deps, configured);
  const process = processing(deps, ops);
  const connect = connecting(deps, configured, ops, organization);
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
    processInbox: process.run,
    redactAgain: process.redactAgain,
    runOperation: ops.run,
    retryOperation: ops.retry,
    publish: products.publish,
    unpublish: products.unpublish,
    publishedProducts: products.list,
    productChanged: products.productChanged,
    /**
     * Each publication's latest call to Shopify, by publication reference: waiting, retrying (with
     * the attempt it is at and the error that made it retry), failed (a person retries it) or done.
     */
    async publicationCalls(storeId: string): Promise<Map<string, PublicationCall>> {
      const rows = await repo.latestPublicationOperations(deps.db, storeId);
      return new Map(
        rows.map((o) => [
          String(o.payload.productId),
          {
            operationId: o.id,
            kind: o.kind as 'publish' | 'unpublish',
            state:
              o.status === 'queued'
                ? o.attempts > 0
                  ? 'retrying'
                  : 'waiting'
                : o.status === 'failed'
                  ? 'failed'
                  : 'done',
            attempts: o.attempts,
            maxAttempts: MAX_ATTEMPTS,
            lastError: o.last_error,
            updatedAt: o.updated_at,
          },
        ]),
      );
    },
    /** A published product's mockup as uploaded to Shopify (dashboard thumbnails). */
    async mediaOf(orgId: string, storeRef: string, publicationRef: string, n: number) {
      const conn = await repo.connectionOfStore(deps.db, storeRef);
      const row = conn?.organization_id === orgId ? await repo.productOf(deps.db, storeRef, publicationRef) : null;
      const m = row?.media[n];
      return m ? { bytes: await deps.blobs.get(m.blobKey), mimeType: `image/${m.blobKey.split('.').pop()}` } : null;
    },
    installUrl: connect.installUrl,
    completeConnect: connect.complete,
    connection: (storeId: string) => repo.connectionOfStore(deps.db, storeId),
    connections: (orgId: string) => repo.connectionsOf(deps.db, orgId),
    operations: (storeId: string, status: 'failed' | null, limit = 50) =>
      repo.operationsOf(deps.db, storeId, status, limit),
    inbox: (storeId: string, limit = 20) => repo.recentInbox(deps.db, storeId, limit),
    privacyLog: (storeId: string, limit = 20) => repo.privacyLog(deps.db, storeId, limit),
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

    /** In the shipment's transaction: each shipped order of a Shopify store gets its fulfillment. */
    async shipped(tx: Executor, orders: ShippedOrder[]) {
      for (const o of orders) {
        const conn = await repo.connectionOfStore(tx, o.storeId);
        if (!conn) continue;
        await ops.enqueue(tx, o.storeId, o.organizationId, {
          kind: 'fulfillment_create',
          subject: o.orderId,
          payload: { orderId: o.orderId, company: o.carrier, number: o.trackingNumber, url: o.trackingUrl },
        });
      }
    },
    /** The carrier's tracking number arrived after the shipment left: the fulfillment gets it. */
    async trackingAssigned(tx: Executor, orders: ShippedOrder[]) {
      for (const o of orders) {
        if (!o.trackingNumber) continue;
        const conn = await repo.connectionOfStore(tx, o.storeId);
        if (!conn) continue;
        await ops.enqueue(tx, o.storeId, o.organizationId, {
          kind: 'fulfillment_tracking',
          subject: o.orderId,
          payload: { orderId: o.orderId, company: o.carrier, number: o.trackingNumber, url: o.trackingUrl },
        });
      }
    },
    /** In the tracking event's transaction: the fulfillment's status follows the carrier's. */
    async tracked(
      tx: Executor,
      orders: Array<{ orderId: string; storeId: string; organizationId: string }>,
      status: string,
      at: Date,
    ) {
      const shopifyStatus = EVENT_STATUS[status];
      if (!shopifyStatus) return;
      for (const o of orders) {
        const conn = await repo.connectionOfStore(tx, o.storeId);
        if (!conn) continue;
        await ops.enqueue(tx, o.storeId, o.organizationId, {
          kind: 'fulfillment_event',
          subject: o.orderId,
          payload: { orderId: o.orderId, status: shopifyStatus, happenedAt: at.toISOString(), message: null },
        });
      }
    },
  };
}

export interface PublicationCall {
  operationId: string;
  kind: 'publish' | 'unpublish';
  state: 'waiting' | 'retrying' | 'failed' | 'done';
  attempts: number;
  maxAttempts: number;
  /** The last error while retrying or failed; the outcome's note when done. */
  lastError: string | null;
  updatedAt: Date;
}

export type StorefrontsService = ReturnType<typeof storefrontsService>;

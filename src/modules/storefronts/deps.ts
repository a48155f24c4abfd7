import type { FastifyBaseLogger } from 'fastify';
import type { ShopifyConfig } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db, Executor } from '../../platform/db/index.ts';
import type { Worker } from '../../platform/jobs/worker.ts';
import type { BlobStore } from '../../platform/storage.ts';
import type { UpstreamOrder } from '../orders/upstream.ts';
import type { CatalogService } from '../catalog/service.ts';
import type { ImagesService } from '../images/service.ts';
import type { RenderingService } from '../rendering/service.ts';
import type { SecretBox } from '../webhooks/secrets.ts';
import type { FetchLike } from './shopify/client.ts';

/** An order as an upstream platform hands it over, in the API's own terms. */
export type UpstreamOrderInput = UpstreamOrder;

/** What the storefronts module needs of the orders module (its service, never its tables). */
export interface OrdersPort {
  /**
   * Creates the order through the API's pipeline; an upstream order already taken returns that order.
   * `taken`: what `takenUpstream` answered for it (the order's reference, or null), when asked for a batch.
   */
  createUpstream(
    orgId: string,
    storeId: string,
    input: UpstreamOrderInput,
    taken?: string | null,
  ): Promise<{ reference: string; created: boolean }>;
  /** The orders taken for these upstream orders of the store, by upstream id (absent: none yet). */
  takenUpstream(storeId: string, upstreamIds: string[]): Promise<Map<string, string>>;
  /** The order taken for an upstream order, if any. */
  findUpstream(
    ex: Executor,
    storeId: string,
    upstreamId: string,
  ): Promise<{ reference: string; status: string } | null>;
  /** Cancels every open quantity of an upstream order not in production; false (and why) otherwise. */
  cancelUpstream(orgId: string, orderRef: string): Promise<{ canceled: boolean; reason: string | null }>;
  /** Blanks the addresses of the store's upstream orders (all of them, or those of `upstreamIds`) whose claim window closed; the rest are left and counted. */
  redactAddresses(
    storeId: string,
    upstreamIds: string[] | null,
    now: Date,
  ): Promise<{ redacted: number; waiting: Date | null }>;
}

export interface StorefrontsDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  worker: Worker;
  box: SecretBox;
  blobs: BlobStore;
  publicBaseUrl: string;
  env: 'test' | 'production';
  shopify: ShopifyConfig | null;
  /** How calls reach Shopify: the global fetch in production, the test stand-in in tests. */
  fetch: FetchLike;
  orders: OrdersPort;
  catalog: Pick<CatalogService, 'orderableProducts'>;
  images: Pick<ImagesService, 'imagesForOrganization'>;
  rendering: Pick<RenderingService, 'productMockups' | 'preview'>;
}

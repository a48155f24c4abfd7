import type { SellerConfig } from '../config-seller.ts';

export type AppEnv = 'test' | 'production';

/** PRODUCTION_HOLIDAYS: whose public holidays the factory keeps (`NL`, `DE-BY`), and its own closed dates. */
export interface ProductionHolidays {
  regions: Array<{ country: string; state?: string }>;
  /** `YYYY-MM-DD` in PRODUCTION_TIME_ZONE. */
  closedDays: string[];
}

export interface RateLimitPolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

export interface Config {
  env: AppEnv;
  host: string;
  port: number;
  publicBaseUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Where the embedded database runs when DATABASE_URL is unset: its own thread, or the event loop's. */
  pgliteThread: PgliteThread;
  redisUrl: string | null;
  logLevel: string;
  /** `pretty` (one readable line per entry) or `json`; `auto` picks pretty when stdout is a terminal. */
  logFormat: 'auto' | 'pretty' | 'json';
  runWorker: boolean;
  trustProxy: boolean;
  /** Jobs at once per worker process, per pool. */
  jobConcurrency: Record<'renders' | 'deliveries' | 'maintenance', number>;
  webhookDisableAfterHours: number;
  operatorToken: string | null;
  secretKey: string | null;
  rateLimits: Record<'default' | 'uploads' | 'downloads' | 'previews', RateLimitPolicy>;
  keyCacheTtlSeconds: number;
  bodyLimitBytes: number;
  uploadLimitBytes: number;
  imageMemoryMb: number;
  /** How libvips' and the compositor's threads go below the API's: SCHED_IDLE, or nice 10 only. */
  pixelThreads: 'idle' | 'nice';
  uploadMemoryMb: number;
  shutdownDrainSeconds: number;
  callbackRetrySeconds: number;
  /** Attempts of one order-updated callback before it is given up. */
  callbackMaxAttempts: number;
  callbackTimeoutMs: number;
  webhookTestTimeoutMs: number;
  /** Where partners write to; in the OpenAPI document's contact. */
  supportEmail: string | null;
  allowPrivateTargets: boolean;
  /** Seconds to wait before each webhook retry; one entry per retry. */
  webhookRetrySchedule: number[];
  /** Days the request log keeps a request (dashboard and support lookup). */
  requestLogRetentionDays: number;
  /** Whether /v2 requests are recorded for the request log at all. */
  requestLog: boolean;
  /** How far V8's heap may grow past what survived its last full collection, in %; 0 leaves V8's own rule. */
  heapGrowthPercent: number;
  /** How often freed C-heap pages go back to the system, in seconds; 0 never. */
  memoryTrimSeconds: number;
  /** Where returned parcels go: printed on shipping labels and packing slips. Lines, country code last. */
  returnAddress: string[];
  /** VIES's REST `check-vat-number` endpoint for live VAT number checks; null: no live check. */
  viesUrl: string | null;
  /** The invoicing company's legal details (SELLER_*). */
  seller: SellerConfig;
  blobStore: 'local' | 's3';
  s3: S3Config | null;
  /** The Shopify app's credentials; null until SHOPIFY_API_KEY and SHOPIFY_API_SECRET are both set. */
  shopify: ShopifyConfig | null;
  /** How orders go from `pending` to `in_production`: by hand, at once, or at the factory's cut-off times. */
  productionRelease: ProductionRelease;
  /** The factory's time zone: cut-off times and working days are read in it. */
  productionTimeZone: string;
  /** The floor file: printers, their jigs and slots, bleed, blank bins (docs/production.md). */
  floorConfigPath: string | null;
  /** Working days (Monday to Friday) from an order's placing to its parcel leaving: later is late. */
  productionPromiseDays: number;
  /** The days the factory is closed besides weekends: public holidays of regions, and dates of its own. */
  productionHolidays: ProductionHolidays;
  /** Who labels and tracks parcels: the sandbox (test only), Sendcloud, or the operator by hand. */
  carrier: CarrierKind;
  /** Sendcloud's API credentials and webhook key; null unless CARRIER=sendcloud. */
  sendcloud: SendcloudConfig | null;
  /** Days without a carrier scan after which a parcel counts as lost (needs attention). */
  parcelLostAfterDays: number;
}

export type CarrierKind = 'sandbox' | 'sendcloud' | 'manual';

/** A Sendcloud API integration (Settings → Integrations → Sendcloud API). */
export interface SendcloudConfig {
  publicKey: string;
  secretKey: string;
  /** The integration's webhook signature key; the secret key signs when unset. */
  webhookKey: string;
  apiUrl: string;
}

/** `manual`: an operator or a test helper starts production; `cutoffs`: local times (HH:MM), ascending. */
export type ProductionRelease = { mode: 'manual' } | { mode: 'immediate' } | { mode: 'cutoffs'; times: string[] };

/** The Shopify app the service acts as (Partner Dashboard: the app's client id and secret). */
export interface ShopifyConfig {
  apiKey: string;
  apiSecret: string;
  scopes: string[];
}

/** Where an S3-compatible blob store lives; null unless BLOB_STORE=s3. */
export interface S3Config {
  bucket: string;
  /** Unset uses AWS S3 itself; set for MinIO, Ceph, R2 or a local test server. */
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
}

export class ConfigError extends Error {}

export type PgliteThread = 'worker' | 'inline';

export const JOB_POOLS = ['renders', 'deliveries', 'maintenance'] as const;
export type JobPool = (typeof JOB_POOLS)[number];

/** The environment the configuration is read from (`process.env` by default). */
export type Env = Record<string, string | undefined>;

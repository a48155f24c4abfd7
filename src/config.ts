import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { SELLER_VARIABLES, type SellerConfig, parseSeller } from './config-seller.ts';

export type AppEnv = 'test' | 'production';

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

export function parsePgliteThread(raw: string | undefined, name = 'PGLITE_THREAD'): PgliteThread {
  if (raw === undefined || raw === '') return 'worker';
  if (raw !== 'worker' && raw !== 'inline') throw new ConfigError(`${name} must be "worker" or "inline", got "${raw}"`);
  return raw;
}

type Env = Record<string, string | undefined>;

/** What a store is asked for when it connects: orders in, products and media out, fulfillment. */
export const SHOPIFY_DEFAULT_SCOPES = [
  'read_orders',
  'write_products',
  'write_files',
  'write_inventory',
  'write_fulfillments',
  'write_assigned_fulfillment_orders',
];

/**
 * One entry per variable: the README's configuration table is generated from this list
 * (`npm run docs:config`), and test/platform/config.test.ts fails when the two differ.
 */
export const CONFIG_VARIABLES: Array<{ name: string; default: string; description: string }> = [
  { name: 'APP_ENV', default: 'test', description: '`test` or `production`; test helpers exist only in `test`.' },
  { name: 'HOST', default: '127.0.0.1', description: 'Address the HTTP server binds to.' },
  { name: 'PORT', default: '3000', description: 'TCP port of the HTTP server.' },
  {
    name: 'PUBLIC_BASE_URL',
    default: 'http://HOST:PORT',
    description: 'Base address used in links (tracking pages, media, evidence).',
  },
  { name: 'DATA_DIR', default: './data', description: 'Embedded database files, blobs and the operator token.' },
  {
    name: 'DATABASE_URL',
    default: '(unset)',
    description: 'PostgreSQL connection string; unset uses the embedded PGlite database in DATA_DIR.',
  },
  {
    name: 'PGLITE_THREAD',
    default: 'worker',
    description:
      'Where the embedded database runs: `worker` (its own thread, so HTTP and SQL use two cores) or `inline` (the event loop thread).',
  },
  {
    name: 'REDIS_URL',
    default: '(unset)',
    description: 'Redis for rate-limit state shared by several API processes; unset keeps it in memory.',
  },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    description: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.',
  },
  {
    name: 'LOG_FORMAT',
    default: 'auto',
    description:
      '`pretty` (readable lines) or `json` (one JSON object a line); `auto` is pretty when stdout is a terminal.',
  },
  {
    name: 'TRUST_PROXY',
    default: 'false',
    description:
      'Behind a TLS-terminating reverse proxy: client addresses from X-Forwarded-For, Secure sign-in cookies. Production refuses an http `PUBLIC_BASE_URL` (other than loopback) without it.',
  },
  {
    name: 'SHUTDOWN_DRAIN_SECONDS',
    default: '5 (production), 0 (test)',
    description:
      'On SIGTERM the server keeps serving this long with `/readyz` at 503 and `Connection: close` on every answer, so a load balancer moves traffic away; then it stops listening and finishes what runs.',
  },
  { name: 'RUN_WORKER', default: 'true', description: 'Run the background worker inside the server process.' },
  {
    name: 'JOB_CONCURRENCY',
    default: 'renders=2,deliveries=8,maintenance=2',
    description:
      'Jobs at once per worker process, per pool (renders, at least 2; webhook and callback deliveries; maintenance). Organizations are served least recently served first; each holds at most its fair share of a pool (the slots less one, divided among the organizations with work), and the last free slot waits for an organization holding none. A webhook endpoint has one attempt in flight at a time.',
  },
  {
    name: 'WEBHOOK_DISABLE_AFTER_HOURS',
    default: '72',
    description:
      'An endpoint failing every delivery for this long is disabled and `webhook_endpoint.disabled` is sent.',
  },
  {
    name: 'OPERATOR_TOKEN',
    default: '(generated)',
    description: 'Bearer token of the operator API; generated into DATA_DIR/operator-token when unset.',
  },
  {
    name: 'SECRET_KEY',
    default: '(generated)',
    description:
      'Signs pagination cursors; generated into DATA_DIR/secret-key when unset. Set the same value on every node.',
  },
  {
    name: 'RATE_LIMITS',
    default: 'default=3000/60,uploads=5000/86400,downloads=100000/86400,previews=300/60',
    description: 'Default quota/window (seconds) per policy; operators can override per organization.',
  },
  {
    name: 'KEY_CACHE_TTL_SECONDS',
    default: '10',
    description: 'How long another node may keep accepting a revoked API key (same node: at once).',
  },
  { name: 'BODY_LIMIT_BYTES', default: '1048576', description: 'Largest JSON request body.' },
  { name: 'UPLOAD_LIMIT_BYTES', default: '52428800', description: 'Largest image or evidence upload.' },
  {
    name: 'UPLOAD_MEMORY_MB',
    default: '64',
    description:
      'Bytes of upload bodies one process takes in at once (written to DATA_DIR/tmp/uploads, not kept in memory); further uploads are read only when earlier ones were answered.',
  },
  {
    name: 'IMAGE_MEMORY_MB',
    default: '200',
    description:
      'Memory image decodes of one process may hold together; others wait their turn, and an image that alone needs more (a huge interlaced PNG or progressive JPEG) is refused.',
  },
  { name: 'CALLBACK_RETRY_SECONDS', default: '300', description: 'Delay between order-updated callback attempts.' },
  {
    name: 'CALLBACK_MAX_ATTEMPTS',
    default: '864',
    description:
      'Attempts of one order-updated callback before it is given up (864: 3 days at the default delay); the order page of the dashboard shows it given up with its last error.',
  },
  { name: 'CALLBACK_TIMEOUT_MS', default: '10000', description: 'Time-out of one callback or webhook attempt.' },
  {
    name: 'SUPPORT_EMAIL',
    default: '(unset)',
    description:
      "Partners' support address, given as the contact of the OpenAPI document (beside the dashboard's address).",
  },
  {
    name: 'WEBHOOK_TEST_TIMEOUT_MS',
    default: '3000',
    description:
      'Time-out of a test ping (`POST /v2/webhook-endpoints/{ref}/test`), and the least time it takes to answer when no HTTP answer came, so that refused and filtered ports look alike.',
  },
  {
    name: 'WEBHOOK_RETRY_SCHEDULE',
    default: '5,300,1800,7200,18000,36000,36000',
    description:
      'Seconds before each webhook retry after a failed attempt (comma-separated); after the last, the delivery is `failed`.',
  },
  {
    name: 'REQUEST_LOG',
    default: 'true',
    description:
      'Record every authenticated /v2 request for the dashboard request log; `false` starts the log paused. An operator pauses or resumes it at runtime (`PUT /operator/request-log`, `podctl request-log`).',
  },
  {
    name: 'REQUEST_LOG_RETENTION_DAYS',
    default: '14',
    description:
      'Days the request log of the dashboard keeps each /v2 request (1-365); the hourly maintenance job deletes older ones.',
  },
  {
    name: 'HEAP_GROWTH_PERCENT',
    default: '50',
    description:
      "How far the JavaScript heap may grow past what survived its last full garbage collection before the next one, in % (0-400); `0` keeps V8's own rule, which lets a busy process grow its heap several times over (docs/memory.md).",
  },
  {
    name: 'MEMORY_TRIM_SECONDS',
    default: '5',
    description:
      "Every so many seconds (0-3600) the process gives the memory its C allocator holds free back to the system (glibc's `malloc_trim`; ~25-70 MB on a node that renders or runs the embedded database); `0` never does. Linux with glibc only (docs/memory.md).",
  },
  {
    name: 'RETURN_ADDRESS',
    default: 'c/o POD Fulfilment Centre|Industrieweg 12|3044 AS Rotterdam|NL',
    description:
      'Return address on shipping labels and packing slips: lines separated by `|`, the ISO country code last. The brand name is printed above it.',
  },
  {
    name: 'VIES_URL',
    default: '(unset)',
    description:
      "Live VAT number checks against VIES's REST service, e.g. `https://ec.europa.eu/taxation_customs/vies/rest-api/check-vat-number`; unset: no live check (the form and check digits are still checked, and an operator confirms the number).",
  },
  ...SELLER_VARIABLES,
  {
    name: 'SHOPIFY_API_KEY',
    default: '(unset)',
    description:
      "The Shopify app's client ID. With `SHOPIFY_API_SECRET` it turns on Shopify stores (connect, publish, orders in, tracking out); see docs/shopify.md.",
  },
  {
    name: 'SHOPIFY_API_SECRET',
    default: '(unset)',
    description:
      "The Shopify app's client secret: signs OAuth and verifies every webhook (`X-Shopify-Hmac-Sha256`). Never logged.",
  },
  {
    name: 'SHOPIFY_SCOPES',
    default: SHOPIFY_DEFAULT_SCOPES.join(','),
    description: 'Access scopes asked for when a store connects (comma-separated).',
  },
  {
    name: 'BLOB_STORE',
    default: 'local',
    description: '`local` (files under DATA_DIR/blobs) or `s3` (an S3-compatible bucket shared by every node).',
  },
  { name: 'S3_BUCKET', default: '(unset)', description: 'Bucket of the blobs; required when BLOB_STORE=s3.' },
  {
    name: 'S3_ENDPOINT',
    default: '(unset)',
    description: 'Endpoint of an S3-compatible server (MinIO, Ceph, R2); unset uses AWS S3.',
  },
  { name: 'S3_REGION', default: 'us-east-1', description: 'Region of the bucket.' },
  {
    name: 'S3_ACCESS_KEY_ID',
    default: '(unset)',
    description:
      'Access key; unset uses the SDK default chain (instance role, AWS_* variables). Set with S3_SECRET_ACCESS_KEY.',
  },
  { name: 'S3_SECRET_ACCESS_KEY', default: '(unset)', description: 'Secret of S3_ACCESS_KEY_ID.' },
  {
    name: 'S3_FORCE_PATH_STYLE',
    default: 'true when S3_ENDPOINT is set',
    description: 'Address the bucket as ENDPOINT/BUCKET/KEY instead of BUCKET.ENDPOINT/KEY.',
  },
  {
    name: 'PRODUCTION_RELEASE',
    default: 'manual (test), 10:00,15:00 (production)',
    description:
      'How orders go into production: `manual` (an operator or a test helper starts each), `immediate` (within a minute, when nothing holds them), or cut-off times such as `10:00,15:00` in PRODUCTION_TIME_ZONE. Held orders (prepaid without balance, pre-orders, blanks out of stock) go on by themselves once the reason clears (docs/production.md).',
  },
  {
    name: 'PRODUCTION_TIME_ZONE',
    default: 'Europe/Amsterdam',
    description: "The factory's IANA time zone: cut-off times and working days are read in it.",
  },
  {
    name: 'FLOOR_CONFIG',
    default: 'config/floor.json (shipped)',
    description:
      "Path of the floor file: the printers, their jigs' slots (size, position on the bed, rotation, case types and models that fit), the bleed beyond the cut line, and the bins blanks are picked from. Checked at start-up; see docs/production.md.",
  },
  {
    name: 'CARRIER',
    default: 'sandbox in test, manual in production',
    description:
      '`sandbox` (test only: made-up tracking numbers), `sendcloud` (labels and tracking through Sendcloud) or `manual` (the operator types the carrier and tracking number); see docs/carriers.md. Production refuses to start with `sandbox`.',
  },
  {
    name: 'SENDCLOUD_PUBLIC_KEY',
    default: '(unset)',
    description: "The Sendcloud API integration's public key; required when CARRIER=sendcloud.",
  },
  {
    name: 'SENDCLOUD_SECRET_KEY',
    default: '(unset)',
    description: "The Sendcloud API integration's secret key; required when CARRIER=sendcloud. Never logged.",
  },
  {
    name: 'SENDCLOUD_WEBHOOK_KEY',
    default: 'SENDCLOUD_SECRET_KEY',
    description:
      'The key that verifies `Sendcloud-Signature` on parcel-status webhooks (HMAC-SHA256 of the raw body), when the integration has a webhook signature key of its own.',
  },
  {
    name: 'SENDCLOUD_API_URL',
    default: 'https://panel.sendcloud.sc/api/v3',
    description: "Base address of Sendcloud's API v3.",
  },
  {
    name: 'PRODUCTION_PROMISE_DAYS',
    default: '3',
    description:
      "Working days (1-30, Monday to Friday in PRODUCTION_TIME_ZONE) from an order's placing to its parcel leaving the factory. The console's production overview lists open orders past it as late.",
  },
  {
    name: 'PARCEL_LOST_AFTER_DAYS',
    default: '7',
    description:
      'Days (1-60) without a carrier scan after which a tracked parcel counts as lost: it needs attention in the console and its package-missing claim opens at once.',
  },
  {
    name: 'ALLOW_PRIVATE_TARGETS',
    default: 'true in test, false in production',
    description: 'Allow callback and webhook targets on loopback or private addresses.',
  },
];

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** An e-mail address for the document's contact, or null when unset. */
function supportEmail(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(raw.trim()))
    throw new ConfigError(`SUPPORT_EMAIL must be an e-mail address, got "${raw}"`);
  return raw.trim();
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

export function parseRetrySchedule(raw: string | undefined, name = 'WEBHOOK_RETRY_SCHEDULE'): number[] {
  if (raw === undefined || raw.trim() === '') return [5, 300, 1800, 7200, 18000, 36000, 36000];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20) throw new ConfigError(`${name}: at most 20 retries, got ${parts.length}`);
  return parts.map((p) => {
    if (!/^\d+$/.test(p) || Number(p) > 7 * 86400)
      throw new ConfigError(`${name}: "${p}" is not a whole number of seconds between 0 and 604800`);
    return Number(p);
  });
}

/** SHOPIFY_API_KEY and SHOPIFY_API_SECRET come together or not at all. */
export function parseShopify(env: Record<string, string | undefined>): ShopifyConfig | null {
  const apiKey = env.SHOPIFY_API_KEY?.trim() ?? '';
  const apiSecret = env.SHOPIFY_API_SECRET?.trim() ?? '';
  if (!apiKey && !apiSecret) return null;
  if (!apiKey || !apiSecret)
    throw new ConfigError(
      "SHOPIFY_API_KEY and SHOPIFY_API_SECRET must be set together (the Shopify app's client ID and secret)",
    );
  const raw = env.SHOPIFY_SCOPES?.trim();
  const scopes = raw ? raw.split(',').map((x) => x.trim()) : SHOPIFY_DEFAULT_SCOPES;
  if (scopes.some((x) => !/^(read|write|unauthenticated_read|unauthenticated_write)_[a-z_]+$/.test(x)))
    throw new ConfigError(`SHOPIFY_SCOPES: comma-separated Shopify access scopes such as write_products; got "${raw}"`);
  return { apiKey, apiSecret, scopes };
}

export function parseProductionRelease(raw: string | undefined, appEnv: AppEnv): ProductionRelease {
  const value = raw?.trim() || (appEnv === 'test' ? 'manual' : '10:00,15:00');
  if (value === 'manual' || value === 'immediate') return { mode: value };
  const times = value.split(',').map((t) => t.trim());
  for (const t of times)
    if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(t))
      throw new ConfigError(
        `PRODUCTION_RELEASE must be manual, immediate or cut-off times such as 10:00,15:00; "${t}" is not a time HH:MM`,
      );
  return { mode: 'cutoffs', times: [...new Set(times)].sort() };
}

export function parseTimeZone(raw: string | undefined, name = 'PRODUCTION_TIME_ZONE'): string {
  const zone = raw?.trim() || 'Europe/Amsterdam';
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new ConfigError(`${name} must be an IANA time zone such as Europe/Amsterdam, got "${zone}"`);
  }
  return zone;
}

export function parseReturnAddress(raw: string | undefined, name = 'RETURN_ADDRESS'): string[] {
  const lines = (raw?.trim() ? raw : 'c/o POD Fulfilment Centre|Industrieweg 12|3044 AS Rotterdam|NL')
    .split('|')
    .map((l) => l.trim());
  if (lines.length < 2 || lines.length > 6 || lines.some((l) => !l || l.length > 60))
    throw new ConfigError(`${name}: 2 to 6 non-empty lines of at most 60 characters, separated by |`);
  if (!/^[A-Z]{2}$/.test(lines[lines.length - 1]))
    throw new ConfigError(`${name}: the last line must be an ISO country code such as NL`);
  return lines;
}

export const JOB_POOLS = ['renders', 'deliveries', 'maintenance'] as const;
export type JobPool = (typeof JOB_POOLS)[number];

export function parseJobConcurrency(raw: string, name = 'JOB_CONCURRENCY'): Record<JobPool, number> {
  const out: Record<JobPool, number> = { renders: 2, deliveries: 8, maintenance: 2 };
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(renders|deliveries|maintenance)=(\d+)$/.exec(part);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 256)
      throw new ConfigError(`${name}: "${part}" is not <pool>=<1..256> with pool renders, deliveries or maintenance`);
    out[m[1] as JobPool] = Number(m[2]);
  }
  // One slot is kept for an organization holding none: with a single render slot, nobody else could render.
  if (out.renders < 2) throw new ConfigError(`${name}: renders takes at least 2 slots, got ${out.renders}`);
  return out;
}

export function parseRateLimits(raw: string, name = 'RATE_LIMITS'): Config['rateLimits'] {
  const limits: Config['rateLimits'] = {
    default: { name: 'default', quota: 3000, windowSeconds: 60 },
    uploads: { name: 'uploads', quota: 5000, windowSeconds: 86400 },
    downloads: { name: 'downloads', quota: 100000, windowSeconds: 86400 },
    // Live previews in a shop's editor: 5 a second sustained per organization, bursts of 300. A
    // node composes 10-20 a second (2 at once, 100-180 ms each, docs/performance.md): one
    // organization within its quota takes at most half of a node, and its places in the node's
    // queue are capped too (rendering/renders.ts).
    previews: { name: 'previews', quota: 300, windowSeconds: 60 },
  };
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(default|uploads|downloads|previews)=(\d+)\/(\d+)$/.exec(part);
    if (!m)
      throw new ConfigError(
        `${name}: "${part}" is not <policy>=<quota>/<seconds> with policy default, uploads, downloads or previews`,
      );
    const quota = Number(m[2]);
    const windowSeconds = Number(m[3]);
    if (quota < 1 || windowSeconds < 1)
      throw new ConfigError(`${name}: quota and window must be at least 1 in "${part}"`);
    limits[m[1] as keyof Config['rateLimits']] = { name: m[1], quota, windowSeconds };
  }
  return limits;
}

/** BLOB_STORE and the S3_* variables; S3_* are ignored for the local store. */
function blobStoreConfig(env: Env): Pick<Config, 'blobStore' | 's3'> {
  const kind = env.BLOB_STORE || 'local';
  if (kind !== 'local' && kind !== 's3') throw new ConfigError(`BLOB_STORE must be "local" or "s3", got "${kind}"`);
  if (kind === 'local') return { blobStore: 'local', s3: null };
  const bucket = env.S3_BUCKET;
  if (!bucket) throw new ConfigError('S3_BUCKET is required when BLOB_STORE=s3');
  // DNS-compatible names also work path-style; dots are allowed for older buckets.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError(`S3_BUCKET must be 3-63 lowercase letters, digits, dots or hyphens, got "${bucket}"`);
  }
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  const region = env.S3_REGION || 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region))
    throw new ConfigError(`S3_REGION must be a region name such as us-east-1, got "${region}"`);
  const accessKeyId = env.S3_ACCESS_KEY_ID || null;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || null;
  if (accessKeyId && !secretAccessKey)
    throw new ConfigError('S3_SECRET_ACCESS_KEY is required when S3_ACCESS_KEY_ID is set');
  if (secretAccessKey && !accessKeyId)
    throw new ConfigError('S3_ACCESS_KEY_ID is required when S3_SECRET_ACCESS_KEY is set');
  const forcePathStyle = bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== null);
  return { blobStore: 's3', s3: { bucket, endpoint, region, accessKeyId, secretAccessKey, forcePathStyle } };
}

/** The carrier adapter; production never invents tracking, so it refuses the sandbox. */
export function carrierConfig(env: Env, appEnv: AppEnv): Pick<Config, 'carrier' | 'sendcloud'> {
  const raw = env.CARRIER || (appEnv === 'production' ? 'manual' : 'sandbox');
  if (raw !== 'sandbox' && raw !== 'sendcloud' && raw !== 'manual')
    throw new ConfigError(`CARRIER must be sandbox, sendcloud or manual; got "${raw}"`);
  if (raw === 'sandbox' && appEnv === 'production')
    throw new ConfigError(
      'CARRIER=sandbox invents tracking numbers and cannot run in production: use sendcloud or manual',
    );
  if (raw !== 'sendcloud') return { carrier: raw, sendcloud: null };
  const publicKey = env.SENDCLOUD_PUBLIC_KEY?.trim() ?? '';
  const secretKey = env.SENDCLOUD_SECRET_KEY?.trim() ?? '';
  if (!publicKey || !secretKey)
    throw new ConfigError('CARRIER=sendcloud needs SENDCLOUD_PUBLIC_KEY and SENDCLOUD_SECRET_KEY');
  const apiUrl = (url(env, 'SENDCLOUD_API_URL', ['https:', 'http:']) ?? 'https://panel.sendcloud.sc/api/v3').replace(
    /\/$/,
    '',
  );
  return {
    carrier: raw,
    sendcloud: { publicKey, secretKey, webhookKey: env.SENDCLOUD_WEBHOOK_KEY?.trim() || secretKey, apiUrl },
  };
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const appEnv = env.APP_ENV ?? 'test';
  if (appEnv !== 'test' && appEnv !== 'production') {
    throw new ConfigError(`APP_ENV must be "test" or "production", got "${appEnv}"`);
  }
  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  const logFormat = env.LOG_FORMAT || 'auto';
  if (logFormat !== 'auto' && logFormat !== 'pretty' && logFormat !== 'json')
    throw new ConfigError(`LOG_FORMAT must be auto, pretty or json; got "${logFormat}"`);
  const publicBaseUrl = (
    url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ).replace(/\/$/, '');
  const trustProxy = bool(env, 'TRUST_PROXY', false);
  const loopback = /^http:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:|\/|$)/.test(publicBaseUrl);
  if (appEnv === 'production' && publicBaseUrl.startsWith('http:') && !loopback && !trustProxy)
    throw new ConfigError(
      `PUBLIC_BASE_URL is ${publicBaseUrl}: production serves sessions and keys over https only. Use an https address, or set TRUST_PROXY=true when a TLS proxy sits in front`,
    );
  return Object.freeze({
    env: appEnv,
    host,
    port,
    publicBaseUrl,
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    pgliteThread: parsePgliteThread(env.PGLITE_THREAD),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    logLevel,
    logFormat,
    runWorker: bool(env, 'RUN_WORKER', true),
    trustProxy,
    jobConcurrency: parseJobConcurrency(env.JOB_CONCURRENCY ?? ''),
    webhookDisableAfterHours: int(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72, 1, 24 * 365),
    operatorToken: env.OPERATOR_TOKEN || null,
    secretKey: env.SECRET_KEY || null,
    rateLimits: parseRateLimits(env.RATE_LIMITS ?? ''),
    keyCacheTtlSeconds: int(env, 'KEY_CACHE_TTL_SECONDS', 10, 0, 3600),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    uploadLimitBytes: int(env, 'UPLOAD_LIMIT_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    imageMemoryMb: int(env, 'IMAGE_MEMORY_MB', 200, 32, 64 * 1024),
    uploadMemoryMb: int(env, 'UPLOAD_MEMORY_MB', 64, 1, 64 * 1024),
    shutdownDrainSeconds: int(env, 'SHUTDOWN_DRAIN_SECONDS', appEnv === 'production' ? 5 : 0, 0, 300),
    callbackRetrySeconds: int(env, 'CALLBACK_RETRY_SECONDS', 300, 1, 86400),
    callbackMaxAttempts: int(env, 'CALLBACK_MAX_ATTEMPTS', 864, 1, 100000),
    callbackTimeoutMs: int(env, 'CALLBACK_TIMEOUT_MS', 10000, 10, 600000),
    webhookTestTimeoutMs: int(env, 'WEBHOOK_TEST_TIMEOUT_MS', 3000, 10, 60000),
    supportEmail: supportEmail(env.SUPPORT_EMAIL),
    allowPrivateTargets: bool(env, 'ALLOW_PRIVATE_TARGETS', appEnv === 'test'),
    webhookRetrySchedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    requestLogRetentionDays: int(env, 'REQUEST_LOG_RETENTION_DAYS', 14, 1, 365),
    requestLog: bool(env, 'REQUEST_LOG', true),
    heapGrowthPercent: int(env, 'HEAP_GROWTH_PERCENT', 50, 0, 400),
    memoryTrimSeconds: int(env, 'MEMORY_TRIM_SECONDS', 5, 0, 3600),
    returnAddress: parseReturnAddress(env.RETURN_ADDRESS),
    viesUrl: url(env, 'VIES_URL', ['https:', 'http:']),
    seller: parseSeller(env, (m) => new ConfigError(m)),
    shopify: parseShopify(env),
    productionRelease: parseProductionRelease(env.PRODUCTION_RELEASE, appEnv),
    productionTimeZone: parseTimeZone(env.PRODUCTION_TIME_ZONE),
    floorConfigPath: env.FLOOR_CONFIG ? resolve(env.FLOOR_CONFIG) : null,
    productionPromiseDays: int(env, 'PRODUCTION_PROMISE_DAYS', 3, 1, 30),
    ...carrierConfig(env, appEnv),
    parcelLostAfterDays: int(env, 'PARCEL_LOST_AFTER_DAYS', 7, 1, 60),
    ...blobStoreConfig(env),
  });
}

/** Reads ./.env into process.env without overriding variables already set. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

/** Loads `.env` and the configuration, or ends the process with a message naming the bad variable. */
export function loadConfigOrExit(): Readonly<Config> {
  loadDotEnv();
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}

import { SELLER_VARIABLES } from '../config-seller.ts';

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
  {
    name: 'PIXEL_THREADS',
    default: 'idle',
    description:
      "How the pixel threads (libvips', the mockup compositor's) give way to the API's on Linux: `idle` (SCHED_IDLE through util-linux `chrt`; nice 10 where it is missing) or `nice` (nice 10). SCHED_IDLE yields to every other process started from the same terminal or service too: use `nice` when the server shares its scheduling group with other CPU-bound work.",
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
      "Working days (1-30, Monday to Friday in PRODUCTION_TIME_ZONE, not PRODUCTION_HOLIDAYS) from an order's placing to its parcel leaving the factory. The console's production overview lists open orders past it as late.",
  },
  {
    name: 'PRODUCTION_HOLIDAYS',
    default: 'NL',
    description:
      'The days the factory is closed besides weekends: a comma list of regions whose public holidays it keeps (a country, `NL`, or a country and state, `DE-BY`; the `date-holidays` calendars) and dates of its own (`2026-12-24`), or `none`. Working days, the production promise and cut-offs skip them (docs/production.md).',
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

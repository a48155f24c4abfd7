/**
 * Every error code the service answers with: its HTTP status, the group of docs/errors.md it is
 * listed under and when it happens. docs/errors.md and the OpenAPI error descriptions are
 * generated from this table (`npm run docs:errors`; a test fails when they disagree), and a code
 * that is not in it does not compile.
 */
export const ERROR_GROUPS = {
  any: 'Any endpoint',
  images: 'Images and evidence',
  orders: 'Orders, quote, addresses',
  claims: 'Claims',
  rendering: 'Rendering',
  webhooks: 'Webhooks',
  testHelpers: 'Test helpers (test environment only)',
  operator: 'Operator API and dashboard',
  shopify: 'Shopify stores (webhooks, OAuth and publishing)',
} as const;
export type ErrorGroup = keyof typeof ERROR_GROUPS;

/** The partner contract's groups: the OpenAPI descriptions list their codes, not the operator's. */
export const PARTNER_GROUPS: readonly ErrorGroup[] = [
  'any',
  'images',
  'orders',
  'claims',
  'rendering',
  'webhooks',
  'testHelpers',
];

interface ErrorSpec {
  status: number;
  group: ErrorGroup;
  /** When it happens, as docs/errors.md says it (Markdown). */
  description: string;
  /** The same code under another group of the docs, with what it means there. */
  also?: Array<{ group: ErrorGroup; description: string }>;
}

export const ERRORS = {
  // ---- any endpoint ----
  invalid_request: {
    status: 400,
    group: 'any',
    description:
      'the body or query does not match the schema (missing field, wrong type, out of range, **undocumented field or query parameter**), body not valid JSON, an empty JSON body, a malformed URL, a NUL character, an `Idempotency-Key` not 1–255 characters, a reference in the body that is not yours, and other input errors whose message says which field (e.g. an unknown `orderlineIndex` in a cancel)',
  },
  request_timeout: {
    status: 408,
    group: 'any',
    description:
      "the request did not arrive within the server's time (2 minutes); answered by the server before any route, without rate-limit headers",
  },
  request_header_fields_too_large: {
    status: 431,
    group: 'any',
    description: 'the request headers are larger than the server accepts (answered before any route)',
  },
  unauthorized: {
    status: 401,
    group: 'any',
    description:
      '`X-Service-Secret-Key` missing, unknown or revoked; or an `sk_live_` key on a test server (and the reverse). A request that sends `Authorization: Bearer` instead is told to use `X-Service-Secret-Key`',
    also: [{ group: 'operator', description: 'operator API or `/metrics` without the right bearer token' }],
  },
  insufficient_permissions: {
    status: 403,
    group: 'any',
    description:
      'a read-only key on an endpoint that needs a full key, whatever its HTTP method: anything that creates, changes or deletes something, and live render previews. A read-only key may read everything, validate itself (`POST /v2/auth/validate`) and ask for a shipping quote (`POST /v2/quote`); the OpenAPI document marks those two with `x-read-only-allowed`',
  },
  not_found: {
    status: 404,
    group: 'any',
    description:
      'unknown route; a resource that does not exist, is malformed, has the wrong type prefix or belongs to another organization (never revealed). The message repeats the reference: `Order Order_… not found`',
  },
  method_not_allowed: { status: 405, group: 'any', description: 'the path exists, the method does not' },
  payload_too_large: {
    status: 413,
    group: 'any',
    description: 'a JSON body over `BODY_LIMIT_BYTES` (1 MB) or an upload over `UPLOAD_LIMIT_BYTES` (50 MB)',
  },
  unsupported_media_type: {
    status: 415,
    group: 'any',
    description:
      'a JSON endpoint without `Content-Type: application/json`; an upload without `application/octet-stream`; a malformed `Content-Type`',
  },
  rate_limited: {
    status: 429,
    group: 'any',
    description:
      'a rate-limit bucket is empty; wait `Retry-After`. Also more than 60 invalid keys a minute from one client address (valid keys are not affected)',
    also: [
      { group: 'webhooks', description: 'more than 10 test pings (`POST /webhook-endpoints/{ref}/test`) a minute' },
    ],
  },
  idempotency_key_reused: {
    status: 409,
    group: 'any',
    description: 'the same `Idempotency-Key` with a different request within 24 hours',
  },
  idempotency_request_in_progress: {
    status: 409,
    group: 'any',
    description: 'the first request with this `Idempotency-Key` is still running; retry shortly',
  },
  invalid_cursor: {
    status: 400,
    group: 'any',
    description: 'a `cursor` that was not issued by this list, or was altered ([pagination](pagination.md))',
  },
  internal_error: { status: 500, group: 'any', description: 'unexpected; logged with the `requestId`' },
  service_unavailable: {
    status: 503,
    group: 'any',
    description: 'the database is unreachable; `Retry-After: 5`',
  },

  // ---- images and evidence ----
  invalid_image: {
    status: 400,
    group: 'images',
    description: 'not a decodable JPEG or PNG (GIF, WebP, SVG, text, truncated, empty), or more than 150 megapixels',
  },

  // ---- orders, quote, addresses ----
  missing_address: {
    status: 400,
    group: 'orders',
    description: 'a dropship order or quote without `dropshipAddress`',
  },
  missing_image_reference: {
    status: 400,
    group: 'orders',
    description: "a print product's orderline without `imageReference`",
  },
  invalid_address: {
    status: 400,
    group: 'orders',
    description:
      'a required address field missing, an unknown country code, a bad e-mail or phone number, a field over the carrier label length, a field in a script the label cannot print (Arabic, Hebrew, Thai, Indic…: Latin, Greek, Cyrillic, Chinese, Japanese and Korean print)',
  },
  invalid_address_missing_email: { status: 400, group: 'orders', description: 'the address has no `email`' },
  invalid_address_denied_country: {
    status: 400,
    group: 'orders',
    description: 'the destination country is denied (`RU`, `BY`, `KP`, `IR`, `SY`, `CU`)',
  },
  product_not_orderable: {
    status: 400,
    group: 'orders',
    description: 'a product that is `announced`, `ended`, `archived` or not in your catalog',
  },
  store_not_writable_via_api: {
    status: 403,
    group: 'orders',
    description: "the store's integration is not `api` (Shopify etc.): create, cancel and change its orders there",
  },
  custom_identifier_in_use: {
    status: 409,
    group: 'orders',
    description: 'another order of the organization has this `customIdentifier`; the message names it',
  },
  canceled_quantity_below_current: {
    status: 409,
    group: 'orders',
    description: "cancel asks for less than the line's current canceled quantity",
  },
  canceled_quantity_exceeds_shippable: {
    status: 409,
    group: 'orders',
    description: 'cancel asks for more than quantity − shipped quantity',
  },
  already_in_production: { status: 409, group: 'orders', description: 'cancel of an order in production' },
  insufficient_balance: {
    status: 409,
    group: 'orders',
    description:
      "a prepaid account's balance does not cover the order when it would go into production; the order stays `pending` until the account is topped up",
  },
  order_completed: {
    status: 409,
    group: 'orders',
    description: 'address change of an order whose lines are all shipped or canceled',
  },
  order_not_dropship: { status: 409, group: 'orders', description: 'address change of a combined order' },
  replacement_address_locked: {
    status: 409,
    group: 'orders',
    description: 'address change of a replacement order',
  },

  // ---- claims ----
  order_not_in_shipment: {
    status: 400,
    group: 'claims',
    description: 'item-issues claim: the order was not shipped in the shipment',
  },
  orderline_not_in_shipment: {
    status: 400,
    group: 'claims',
    description: 'item-issues claim: an `orderlineIndex` that is not a shipped line of the order',
  },
  package_missing_category_not_allowed: {
    status: 400,
    group: 'claims',
    description: "item-issues claim with the 'Package missing' category",
  },
  evidence_required: {
    status: 400,
    group: 'claims',
    description: 'the category needs evidence and the line has none',
  },
  too_many_evidence_references: {
    status: 400,
    group: 'claims',
    description: 'more than 3 evidence references on a line or a package-missing claim',
  },
  evidence_not_found: {
    status: 400,
    group: 'claims',
    description:
      "an evidence reference that is unknown, another organization's, or older than 1 day and unused (deleted)",
  },
  evidence_already_used: {
    status: 400,
    group: 'claims',
    description: 'evidence already attached to a claim, or listed twice',
  },
  claimed_quantity_exceeds_shipped: {
    status: 400,
    group: 'claims',
    description: 'quantity plus what is under pending claims is more than shipped',
  },
  shipment_too_recent: {
    status: 409,
    group: 'claims',
    description: 'package-missing before the delivery window has passed; the message gives the first date',
  },
  warranty_expired: { status: 409, group: 'claims', description: '100 days after the shipment left' },
  shipment_delivered: {
    status: 409,
    group: 'claims',
    description:
      'package-missing on a shipment the carrier reported delivered; the message gives the delivery date (an item-issues claim is still possible)',
  },
  shipment_already_claimed: {
    status: 409,
    group: 'claims',
    description: 'package-missing on a shipment that already has a (not retracted) claim',
  },
  order_already_replaced: {
    status: 409,
    group: 'claims',
    description: 'package-missing on a shipment whose order already has a replacement',
  },
  shipment_empty: {
    status: 409,
    group: 'claims',
    description: 'package-missing on a shipment that carried no items',
  },
  claim_not_pending: {
    status: 409,
    group: 'claims',
    description: 'retract (or decide) a claim that is not pending',
  },

  // ---- rendering ----
  composition_unavailable: {
    status: 410,
    group: 'rendering',
    description: 'the composition was retired (lookup, `GET /compositions/{ref}`, `POST /renders`)',
  },
  rendertoken_limit_exceeded: {
    status: 429,
    group: 'rendering',
    description:
      "the week's rendertokens do not cover the composition's `tokenCost`; `Retry-After` = seconds until Monday 00:00 Europe/Amsterdam",
  },
  render_failed: {
    status: 409,
    group: 'rendering',
    description: 'download of a render that failed (`failureReason` in the render)',
  },
  service_busy: {
    status: 503,
    group: 'rendering',
    description: '`POST /renders/preview`: the node is composing as many previews as it takes; `Retry-After: 1`',
  },
  photo_scene_corners_invalid: {
    status: 400,
    group: 'rendering',
    description:
      '`POST /photo-scenes`: the four corners do not form a convex quadrilateral in the order topLeft, topRight, bottomRight, bottomLeft (sides that cross, a corner turned inwards, anticlockwise, or a side under 48 px)',
  },
  photo_scene_corners_outside: {
    status: 400,
    group: 'rendering',
    description:
      '`POST /photo-scenes`: a corner lies outside the photo (pixels of the image as stored, 0..width, 0..height)',
  },
  photo_scene_photo_too_small: {
    status: 400,
    group: 'rendering',
    description:
      '`POST /photo-scenes`: the photo is under 1000 px on its long edge, the smallest perspective a scene offers',
  },

  // ---- webhooks ----
  webhook_endpoint_limit_reached: { status: 409, group: 'webhooks', description: 'creating a 51st endpoint' },
  webhook_endpoint_deleted: {
    status: 409,
    group: 'webhooks',
    description: 'resending a delivery whose endpoint was deleted',
  },
  webhook_endpoint_disabled: {
    status: 409,
    group: 'webhooks',
    description: 'resending to a disabled endpoint (enable it first)',
  },

  // ---- test helpers ----
  order_not_pending: {
    status: 409,
    group: 'testHelpers',
    description: 'start production of an order that is not `pending` or `preorder`',
  },
  order_not_in_production: {
    status: 409,
    group: 'testHelpers',
    description: 'ship an order that is not `in_production`',
  },
  store_has_no_combined_address: {
    status: 409,
    group: 'testHelpers',
    description: 'ship combined orders of a store without a combined address',
  },
  decision_quantity_mismatch: {
    status: 400,
    group: 'testHelpers',
    description: "a decided line's replacement + refund + rejection is not the claimed quantity",
  },
  tracking_event_before_shipment: {
    status: 400,
    group: 'testHelpers',
    description: "a tracking event's `occurred` lies before the shipment left",
  },
  shipment_not_tracked: {
    status: 409,
    group: 'testHelpers',
    description: 'tracking events for a basic shipment (no carrier tracking)',
  },
  clock_backwards: {
    status: 400,
    group: 'testHelpers',
    description: 'moving the test clock to a time before its own',
  },
  clock_out_of_range: {
    status: 400,
    group: 'testHelpers',
    description: 'moving the test clock more than 1000 years past real time',
  },
  trigger_failed: {
    status: 409,
    group: 'testHelpers',
    description:
      'an event trigger could not create what the event needs (no API store, no launched print product); the message names the step',
  },

  // ---- operator API and dashboard ----
  tracking_number_required: {
    status: 400,
    group: 'operator',
    description:
      'shipping a tracked parcel with the manual carrier (or a typed number) without its tracking number or carrier: production never invents tracking',
  },
  shipment_not_refused: {
    status: 409,
    group: 'operator',
    description:
      'retrying a carrier announcement of a shipment the carrier did not refuse (it is pending or announced)',
  },
  invoice_overcredited: {
    status: 409,
    group: 'operator',
    description: 'a credit note larger than what is left to credit on its invoice',
  },
  tax_request_decided: {
    status: 409,
    group: 'operator',
    description:
      'approving or rejecting a request to change an account’s tax details that was decided (or replaced by a newer one) already',
  },
  bank_statement_invalid: {
    status: 400,
    group: 'operator',
    description:
      'a bank statement import that is not an ISO 20022 camt.053 statement: empty, not well-formed XML, a DOCTYPE, another message (camt.052, camt.054, pain), a required element missing, an amount that is not a decimal, more than 20,000 entries; the message names the first problem and nothing is imported',
  },
  bank_payment_decided: {
    status: 409,
    group: 'operator',
    description: 'assigning or dismissing a bank payment that was matched, assigned or dismissed already',
  },
  integrator_code_in_use: {
    status: 409,
    group: 'operator',
    description: 'an integrator with this code is already registered',
  },
  catalog_conflict: {
    status: 409,
    group: 'operator',
    description: 'two catalog changes touched the same records at once; apply again',
  },
  reference_mismatch: {
    status: 409,
    group: 'operator',
    description: 'catalog file: a key belongs to another reference than the one given',
  },
  invalid_status_transition: {
    status: 409,
    group: 'operator',
    description: 'a product moved back in its lifecycle',
  },
  print_spec_required: {
    status: 409,
    group: 'operator',
    description: 'a print product leaving `announced` without print dimensions',
  },
  printable_immutable: {
    status: 409,
    group: 'operator',
    description: 'changing whether a product is a print product',
  },
  legacy_sku_immutable: { status: 409, group: 'operator', description: 'legacy SKU changed' },
  legacy_sku_in_use: { status: 409, group: 'operator', description: 'legacy SKU taken by another product' },
  unknown_device: {
    status: 400,
    group: 'operator',
    description: 'catalog file: a product names a device that is not in the device table',
  },
  not_printable: {
    status: 400,
    group: 'operator',
    description: 'print specification or layers on a non-print product',
  },
  claimcategory_name_in_use: {
    status: 409,
    group: 'operator',
    description: 'a claim category with that name exists',
  },
  store_code_in_use: { status: 409, group: 'operator', description: 'a store with that code exists' },
  invalid_credentials: {
    status: 401,
    group: 'operator',
    description: 'dashboard sign-in: wrong e-mail or password',
  },
  sign_in_throttled: {
    status: 429,
    group: 'operator',
    description:
      'dashboard sign-in: too many failed attempts from this network, or failed sign-ins from this address across e-mails; wait `Retry-After`',
  },
  ambiguous_name: {
    status: 409,
    group: 'operator',
    description:
      '`GET /operator/resolve` (podctl given a name): several organizations, or several stores of one, have that exact name; the message and `details` list them',
  },
  not_in_production: {
    status: 403,
    group: 'operator',
    description: '`POST /operator/seed` (`podctl seed`) in production: demo data is never loaded there',
  },
  production_file_not_ready: {
    status: 409,
    group: 'operator',
    description:
      'downloading a print file, shipping label or packing slip that is still being made or failed (its status and error say which)',
  },
  batch_not_open: {
    status: 409,
    group: 'operator',
    description: 'marking a batch printed that is printed or canceled already (the message says which and when)',
  },
  scan_refused: {
    status: 409,
    group: 'operator',
    description:
      'a station refuses the scanned case: not in production, not printed, through that station already, failed QC, or waiting for a blank (the message says which)',
  },
  production_not_started: {
    status: 409,
    group: 'operator',
    description: 'making print files anew for an order that has not gone into production',
  },
  shopify_not_configured: {
    status: 503,
    group: 'shopify',
    description: 'Shopify stores need `SHOPIFY_API_KEY` and `SHOPIFY_API_SECRET`; they are not set',
  },
  shopify_signature_invalid: {
    status: 401,
    group: 'shopify',
    description: 'a webhook or callback whose `X-Shopify-Hmac-Sha256` (or OAuth `hmac`) is missing or does not match',
  },
  shopify_shop_unknown: {
    status: 404,
    group: 'shopify',
    description: 'a webhook from a shop no store is connected to',
  },
  shopify_payload_invalid: {
    status: 400,
    group: 'shopify',
    description:
      'a signed webhook whose body is not JSON or not the documented payload of its topic; the message names the field',
  },
  shopify_topic_unsupported: {
    status: 400,
    group: 'shopify',
    description: 'a signed webhook of a topic the service does not subscribe to',
  },
  shopify_shop_invalid: {
    status: 400,
    group: 'shopify',
    description: 'connecting a shop that is not a `*.myshopify.com` host',
  },
  shopify_oauth_failed: {
    status: 400,
    group: 'shopify',
    description: 'an OAuth callback with a bad or expired `state`, or a code Shopify would not exchange',
  },
  store_not_shopify: {
    status: 409,
    group: 'shopify',
    description: 'publishing to a store that is not a connected Shopify store',
  },
  unauthenticated: { status: 401, group: 'operator', description: 'dashboard page without a session' },
  csrf_token_invalid: {
    status: 403,
    group: 'operator',
    description: 'dashboard form without a valid CSRF token',
  },
  operator_only: { status: 403, group: 'operator', description: 'console page for a partner user' },
  partner_only: { status: 403, group: 'operator', description: 'partner dashboard page for an operator' },
  email_in_use: {
    status: 409,
    group: 'operator',
    description: 'dashboard users and invitations: a user with that e-mail exists',
  },
  invalid_email: {
    status: 400,
    group: 'operator',
    description: 'dashboard users and invitations: not an e-mail address',
  },
  passwords_differ: {
    status: 400,
    group: 'operator',
    description: 'dashboard users and invitations: the password and its repetition differ',
  },
  password_too_short: {
    status: 400,
    group: 'operator',
    description: 'dashboard users and invitations: a password under the minimum length',
  },
  password_published: {
    status: 400,
    group: 'operator',
    description:
      'dashboard users and invitations in production: one of the demo passwords printed in the documentation',
  },
  password_too_long: {
    status: 400,
    group: 'operator',
    description: 'dashboard users and invitations: a password over the maximum length',
  },
  logo_not_an_image: {
    status: 400,
    group: 'operator',
    description: 'dashboard brand logo upload: not a PNG or JPEG image of at most 25 megapixels',
  },
  logo_too_large: { status: 400, group: 'operator', description: 'dashboard brand logo upload: over 2 MB' },
  render_pending: {
    status: 400,
    group: 'operator',
    description: 'dashboard: downloading a render that is not finished',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;
/** The codes registered with status `S` (what `conflict`, `forbidden` and `badRequest` accept). */
export type ErrorCodeOf<S extends number> = {
  [C in ErrorCode]: (typeof ERRORS)[C]['status'] extends S ? C : never;
}[ErrorCode];

export const statusOf = (code: ErrorCode): number => ERRORS[code].status;

/** What each status means, ahead of its codes in the OpenAPI error descriptions. */
const STATUS_MEANINGS: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing or invalid X-Service-Secret-Key',
  403: 'Insufficient permissions',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict with the current state',
  408: 'Request timeout',
  410: 'Gone',
  413: 'Body too large',
  415: 'Unsupported Content-Type',
  429: 'Rate limit exceeded; see Retry-After and X-RateLimit',
  431: 'Request headers too large',
  500: 'Internal error',
  503: 'Temporarily unavailable; retry later',
};

/** An error response's description in the OpenAPI document: the status and the partner codes it carries. */
export function statusDescription(status: number): string {
  const codes = (Object.keys(ERRORS) as ErrorCode[]).filter(
    (c) =>
      ERRORS[c].status === status &&
      [ERRORS[c].group, ...((ERRORS[c] as ErrorSpec).also ?? []).map((a) => a.group)].some((g) =>
        PARTNER_GROUPS.includes(g),
      ),
  );
  const meaning = STATUS_MEANINGS[status] ?? 'Error';
  return codes.length ? `${meaning}: ${codes.map((c) => `\`${c}\``).join(', ')}` : meaning;
}

/** The one error type of the service: every failure a client sees is one of these. */
export class ApiError extends Error {
  readonly status: number;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    extra: {
      details?: unknown;
      headers?: Record<string, string>;
      /** Only where the framework decided the status (a 4xx it raised): otherwise the code's. */
      status?: number;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = extra.status ?? ERRORS[code].status;
    this.details = extra.details;
    this.headers = extra.headers;
  }
}

export const badRequest = (message: string, code: ErrorCodeOf<400> = 'invalid_request', details?: unknown) =>
  new ApiError(code, message, { details });

/** `what` names the kind of thing; `reference` (when the caller gave one) is repeated back. */
export const notFound = (what: string, reference?: string) =>
  new ApiError('not_found', reference ? `${what} ${reference} not found` : `${what} not found`);

export const conflict = (code: ErrorCodeOf<409>, message: string) => new ApiError(code, message);

export const forbidden = (code: ErrorCodeOf<403>, message: string) => new ApiError(code, message);

/**
 * The one not-found guard: a lookup's result, or the 404 every missing, malformed or foreign
 * resource gets (never revealing which). Pair it with a nullable `find…` lookup.
 */
export function mustFind<T>(found: T | null | undefined, what: string, reference?: string): T {
  if (found === null || found === undefined) throw notFound(what, reference);
  return found;
}

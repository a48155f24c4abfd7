import type { ErrorSpec } from './groups.ts';

/** Codes of the operator API, the dashboard and the Shopify stores. */
export const OPERATOR_ERRORS = {
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
  print_spec_from_geometry: {
    status: 400,
    group: 'operator',
    description: 'a print specification given for a case whose device and case type give its print area',
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

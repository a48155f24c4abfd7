/**
 * The document's sections, in reading order, with the introduction each one gets (Scalar shows it
 * above the section's operations). Every tag an operation uses is listed here; a test holds both
 * sides to each other.
 */
export const TAGS = [
  {
    name: 'Authentication',
    description:
      'Every request carries `X-Service-Secret-Key`: an `sk_test_…` key on the test environment, `sk_live_…` in production. A read-only key reads, and makes only the writes marked as allowed to it. `POST /v2/auth/validate` checks a key without doing anything else.',
  },
  {
    name: 'Organization',
    description:
      'Your organization and what belongs to it: accounts (who is invoiced), stores (where orders come from; each order names one) and brands (the name, logo and colours a buyer sees on packing slips and tracking pages).',
  },
  {
    name: 'Billing',
    description:
      'What an account is charged and pays: its ledger (every charge, refund, payment and credit, summing to the balance), and its monthly invoices and credit notes as issued, with their payment state (`open`, `partially_paid`, `paid`, `overdue`) and as PDF. Read-only. The test environment invoices nothing: its ledger entries are `simulated`, and the invoice list shows what they would add up to per month, labelled as such.',
  },
  {
    name: 'Catalog',
    description:
      'What you can order: products with their prices, media and status (only `launched` products take new orders), product groups, packagings and stock. Product media download as the images they are.',
  },
  {
    name: 'Images',
    description:
      'Artwork to print and to render: upload the raw bytes once (`Content-Type: application/octet-stream`), then refer to the image from order lines and renders by its reference.',
  },
  {
    name: 'Orders',
    description:
      'Quote shipping, place an order (idempotent with `Idempotency-Key`), follow its status, cancel lines while they are not in production and change the dropship address before it ships. `customIdentifier` finds an order by your own number.',
  },
  {
    name: 'Shipments',
    description:
      'What left the factory: the orders in a parcel, the carrier, the tracking code and the tracking events as the carrier reports them.',
  },
  {
    name: 'Claims',
    description:
      'When a parcel did not arrive or an item is wrong or damaged: file a claim within its window, with evidence photos where the category asks for them, and follow the decision (replacement, refund or rejection).',
  },
  {
    name: 'Rendering',
    description:
      'Product mockups of your artwork: scenes, perspectives and compositions to choose from, renders made in the background (they cost rendertokens, a weekly allowance that resets Mondays), downloads as images, and instant previews for a product editor.',
  },
  {
    name: 'Webhooks',
    description:
      'Events pushed to your endpoints, signed as Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried on failure, with every delivery and attempt on record; the same events are listed under `/v2/events`.',
  },
  {
    name: 'Shopify (extension)',
    description:
      'Publish a design to a connected Shopify store, beyond the contract: each product becomes a variant with its mockups as media, priced in the shop currency. Orders placed on the shop arrive as orders of that store; the API reads them but never creates or cancels them (`store_not_writable_via_api`).',
  },
  {
    name: 'Utilities',
    description: 'Look-ups that help a migration: the product behind a legacy SKU.',
  },
  {
    name: 'Test helpers',
    description:
      'Test environment only (`sk_test_` keys; production answers 404): move an order through production and shipping, add tracking events, decide a claim, trigger any event, and run your organization on a clock of its own.',
  },
];

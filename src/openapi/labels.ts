/** OpenAPI documents are untyped JSON. */
type Json = any;

/**
 * The label of each operation in the reference's sidebar and in generated clients: a few words,
 * verb first. The route's own summary, a full sentence, moves to the start of the description,
 * where nothing of it is lost. An operation missing here keeps its summary cut at its first clause.
 */
export const LABELS: Record<string, string> = {
  listProducts: 'List products',
  getProduct: 'Get a product',
  getProductMedia: 'Download product media',
  listProductgroups: 'List productgroups',
  listPackagings: 'List packagings',
  listItems: 'List stock items',
  lookupProductReferenceByLegacySku: 'Find a product by legacy SKU',
  validateAuth: 'Check a key',
  getOrganization: 'Get the organization',
  listAccounts: 'List accounts',
  getAccount: 'Get an account',
  listInvoices: 'List invoices',
  getInvoice: 'Get an invoice',
  getInvoicePdf: 'Download an invoice PDF',
  getInvoiceUbl: 'Download an invoice as UBL',
  listLedgerEntries: 'List ledger entries',
  listStores: 'List stores',
  getStore: 'Get a store',
  listBrands: 'List brands',
  getBrand: 'Get a brand',
  createOrder: 'Create an order',
  listOrders: 'List orders',
  getOrder: 'Get an order',
  cancelOrderlines: 'Cancel order lines',
  changeDropshipAddress: 'Change the dropship address',
  getAddress: 'Get an address',
  lookupOrderByCustomIdentifier: 'Find an order by custom identifier',
  quoteShipping: 'Quote shipping',
  getShipment: 'Get a shipment',
  testStartProduction: 'Start production',
  testCreateShipment: 'Ship orders',
  testAddTrackingEvents: 'Add tracking events',
  listClaimcategories: 'List claim categories',
  claimPackageMissing: 'Claim a missing package',
  claimItemIssues: 'Claim item issues',
  listClaims: 'List claims',
  getClaim: 'Get a claim',
  retractClaim: 'Retract a claim',
  testDecideClaim: 'Decide a claim',
  listScenes: 'List scenes',
  getScene: 'Get a scene',
  listPerspectives: 'List perspectives',
  getPerspective: 'Get a perspective',
  lookupComposition: 'Find a composition',
  getComposition: 'Get a composition',
  createRender: 'Create a render',
  listRenders: 'List renders',
  previewRender: 'Preview a render',
  getRender: 'Get a render',
  downloadRenderMedia: 'Download a render',
  downloadRenderThumbnail: 'Download a thumbnail',
  getRendertokens: 'Get rendertokens',
  createWebhookEndpoint: 'Create a webhook endpoint',
  listWebhookEndpoints: 'List webhook endpoints',
  getWebhookEndpoint: 'Get a webhook endpoint',
  updateWebhookEndpoint: 'Update a webhook endpoint',
  deleteWebhookEndpoint: 'Delete a webhook endpoint',
  rotateWebhookEndpointSecret: 'Rotate the signing secret',
  testWebhookEndpoint: 'Send a test ping',
  listWebhookDeliveries: 'List deliveries',
  getWebhookDelivery: 'Get a delivery',
  resendWebhookDelivery: 'Resend a delivery',
  listEvents: 'List events',
  getEvent: 'Get an event',
  testGetClock: 'Get the test clock',
  testDeleteClock: 'Reset the test clock',
  testAdvanceClock: 'Advance the test clock',
  testTriggerEvent: 'Trigger an event',
  uploadImage: 'Upload an image',
  listImages: 'List images',
  getImage: 'Get an image',
  uploadEvidence: 'Upload evidence',
  publishToShopify: 'Publish to Shopify',
  listShopifyPublications: 'List Shopify publications',
  unpublishFromShopify: 'Unpublish from Shopify',
  createPhotoScene: 'Create a photo scene',
  listPhotoScenes: 'List photo scenes',
  getPhotoScene: 'Get a photo scene',
  deletePhotoScene: 'Delete a photo scene',
};

/** The label of an operation: from LABELS, or its summary up to the first `; `, ` (` or `: `. */
export function shortLabel(operationId: string, summary: string): string {
  if (LABELS[operationId]) return LABELS[operationId];
  const plain = summary.replace(/^Test environment: /, '');
  const cut = plain.search(/; | \(|: /);
  const short = cut > 0 ? plain.slice(0, cut) : plain;
  return short.charAt(0).toUpperCase() + short.slice(1);
}

/** Gives every operation of a document its label; the old summary leads its description (in place). */
export function shortenSummaries(doc: Json): Json {
  for (const item of Object.values<Json>(doc?.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      if (typeof op?.summary !== 'string') continue;
      const label = shortLabel(op.operationId ?? '', op.summary);
      if (label === op.summary) continue;
      const sentence = /[.!?]$/.test(op.summary) ? op.summary : `${op.summary}.`;
      op.description = op.description ? `${sentence}\n\n${op.description}` : sentence;
      op.summary = label;
    }
  }
  return doc;
}

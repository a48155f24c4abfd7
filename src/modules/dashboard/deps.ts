import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Worker } from '../../platform/jobs/worker.ts';
import type { RateLimitStore } from '../../platform/ratelimit/index.ts';
import type { BlobStore } from '../../platform/storage.ts';
import type { BillingService } from '../billing/service.ts';
import type { CatalogService } from '../catalog/service.ts';
import type { ClaimsService } from '../claims/service.ts';
import type { ImagesService } from '../images/service.ts';
import type { OrdersService } from '../orders/service.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { ProductionService } from '../production/service.ts';
import type { RenderingService } from '../rendering/service.ts';
import type { RequestLog } from '../requestlog/recorder.ts';
import type { ShipmentsService } from '../shipments/service.ts';
import type { StorefrontsService } from '../storefronts/service.ts';
import type { WebhooksService } from '../webhooks/service.ts';

/** What the dashboard's own service (users, sessions, invitations, logos) uses from other modules. */
export interface DashboardDeps {
  db: Db;
  clock: Clock;
  organization: Pick<OrganizationService, 'organizationFacts' | 'brand' | 'updateBrand'>;
  blobs: BlobStore;
  publicBaseUrl: string;
  rateLimits: RateLimitStore;
  /** Production refuses the demo passwords. */
  env: Config['env'];
}

/**
 * What the dashboard and console pages use from other modules: they show and change the partner's
 * data through the services the API uses, so both follow the same rules.
 */
export interface DashboardPagesDeps {
  db: Db;
  clock: Clock;
  config: Pick<
    Config,
    'env' | 'publicBaseUrl' | 'trustProxy' | 'requestLogRetentionDays' | 'rateLimits' | 'uploadLimitBytes' | 'dataDir'
  >;
  blobs: BlobStore;
  worker: Worker;
  rateLimits: Pick<RateLimitStore, 'peek'>;
  organization: Pick<
    OrganizationService,
    | 'organization'
    | 'organizationFacts'
    | 'listOrganizations'
    | 'createOrganization'
    | 'setRendertokenLimit'
    | 'listAccounts'
    | 'updateAccount'
    | 'listBrands'
    | 'brand'
    | 'createBrand'
    | 'updateBrand'
    | 'listStores'
    | 'store'
    | 'findStore'
    | 'createStore'
    | 'updateStore'
    | 'listApiKeys'
    | 'createApiKey'
    | 'revokeApiKey'
    | 'activeApiKeyCount'
  >;
  catalog: Pick<
    CatalogService,
    | 'product'
    | 'productCards'
    | 'mediaFile'
    | 'anyMediaFile'
    | 'operatorProduct'
    | 'changeProduct'
    | 'productShapes'
    | 'receiveStock'
    | 'correctStock'
    | 'stockMovements'
    | 'productSummaries'
    | 'searchCatalog'
    | 'catalogFacets'
    | 'productDrawing'
  >;
  images: Pick<ImagesService, 'imageForOrganization' | 'readImage' | 'list' | 'upload'>;
  storefronts: Pick<
    StorefrontsService,
    | 'configured'
    | 'connections'
    | 'connection'
    | 'installUrl'
    | 'operations'
    | 'retryOperation'
    | 'inbox'
    | 'privacyLog'
    | 'publish'
    | 'unpublish'
    | 'publishedProducts'
    | 'publicationCalls'
    | 'mediaOf'
  >;
  orders: Pick<
    OrdersService,
    'get' | 'find' | 'list' | 'findAddress' | 'startProduction' | 'callbackAttempts' | 'callbackJobs' | 'activity'
  >;
  shipments: Pick<ShipmentsService, 'get' | 'find' | 'ship' | 'operatorShipment' | 'needingAttention' | 'announce'>;
  claims: Pick<ClaimsService, 'get' | 'list' | 'decide' | 'pendingCount'>;
  rendering: Pick<
    RenderingService,
    | 'findRender'
    | 'listRenders'
    | 'renderFile'
    | 'rendertokens'
    | 'photoScenes'
    | 'lookupComposition'
    | 'preview'
    | 'rendertokensPerHour'
    | 'latestRenderOfEach'
    | 'rendersOfArtwork'
  >;
  webhooks: Pick<
    WebhooksService,
    | 'listEndpoints'
    | 'endpoint'
    | 'createEndpoint'
    | 'updateEndpoint'
    | 'deleteEndpoint'
    | 'rotateSecret'
    | 'testEndpoint'
    | 'listDeliveries'
    | 'resend'
    | 'listEvents'
    | 'endpointCount'
    | 'endpointsInTrouble'
    | 'endpointHealth'
    | 'orderEvents'
  >;
  requestLog: Pick<RequestLog, 'requests' | 'request' | 'requestsWithId'>;
  billing: Pick<
    BillingService,
    | 'ledger'
    | 'invoices'
    | 'invoicePdf'
    | 'invoiceUbl'
    | 'issueMonthlyInvoices'
    | 'recordPayment'
    | 'issueCreditNote'
    | 'taxDetails'
    | 'requestTaxChange'
    | 'pendingTaxChanges'
    | 'approveTaxChange'
    | 'rejectTaxChange'
    | 'importStatement'
    | 'bankPayments'
    | 'assignBankPayment'
    | 'dismissBankPayment'
  >;
  production: Pick<
    ProductionService,
    | 'queue'
    | 'printFilePdf'
    | 'documentPdf'
    | 'markProduced'
    | 'remakePrintFiles'
    | 'remakeDocuments'
    | 'stations'
    | 'overview'
    | 'floor'
  >;
}

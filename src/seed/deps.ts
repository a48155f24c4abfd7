import type { Config } from '../config.ts';
import type { BillingService } from '../modules/billing/service.ts';
import type { CatalogService } from '../modules/catalog/service.ts';
import type { ClaimsService } from '../modules/claims/service.ts';
import type { DashboardService } from '../modules/dashboard/service.ts';
import type { OrganizationService } from '../modules/organization/service.ts';
import type { RenderingService } from '../modules/rendering/service.ts';
import type { StorefrontsService } from '../modules/storefronts/service.ts';

/**
 * What the demo seed uses of the modules, and nothing more: it creates its data through their
 * services, like an operator would. Not part of the service container: the runtime, the CLI, the
 * operator API and the tests call it with the services they have.
 */
export interface SeedDeps {
  config: Pick<Config, 'env'>;
  organization: Pick<
    OrganizationService,
    | 'storeByCode'
    | 'createOrganization'
    | 'createBrand'
    | 'createStore'
    | 'reissueKeys'
    | 'createApiKey'
    | 'organization'
    | 'listStores'
    | 'listBrands'
    | 'listAccounts'
  >;
  /** Accounts open through billing, which checks their VAT numbers. */
  billing: Pick<BillingService, 'openAccount'>;
  catalog: Pick<CatalogService, 'importCatalogOnce' | 'productSummaries' | 'visibleProduct' | 'productShapes'>;
  claims: Pick<ClaimsService, 'ensureDefaultCategories'>;
  rendering: Pick<RenderingService, 'importRendering'>;
  dashboard: Pick<DashboardService, 'userByEmail' | 'createPartnerUser' | 'createOperatorUser'>;
  storefronts: Pick<StorefrontsService, 'connection' | 'connectDemo' | 'ingest'>;
}

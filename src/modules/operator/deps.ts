import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Worker } from '../../platform/jobs/worker.ts';
import type { BillingService } from '../billing/service.ts';
import type { OrganizationService } from '../organization/service.ts';

/** What the operator API uses from other modules, and nothing more. */
export interface OperatorDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'env'>;
  worker: Worker | null;
  organization: Pick<
    OrganizationService,
    | 'listOrganizations'
    | 'createOrganization'
    | 'organizationFacts'
    | 'organization'
    | 'setRateLimits'
    | 'setRendertokenLimit'
    | 'listAccounts'
    | 'createIntegrator'
    | 'listIntegrators'
    | 'listBrands'
    | 'createBrand'
    | 'listStores'
    | 'createStore'
    | 'updateStore'
    | 'listApiKeys'
    | 'createApiKey'
    | 'revokeApiKey'
    | 'resolveOrganization'
    | 'resolveStore'
  >;
  /** Accounts open through billing, which checks their VAT numbers. */
  billing: Pick<BillingService, 'openAccount'>;
  /** Loads the demo data: the app passes the seed in, it is no service of the container. */
  seed(opts: { rotateKeys?: boolean }): Promise<unknown>;
}

import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Cursors } from '../../platform/http/pagination.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { VatNumberChecker } from './vat-checker.ts';

/** What the billing module uses from other modules, and nothing more. */
export interface BillingDeps {
  db: Db;
  clock: Clock;
  cursors: Cursors;
  config: Pick<Config, 'env' | 'publicBaseUrl' | 'seller'>;
  organization: Pick<OrganizationService, 'storeIn' | 'createAccount'>;
  /**
   * A prepaid account's balance was raised (after the commit): the orders held for want of balance
   * may go on. The production floor decides which and when.
   */
  prepaidToppedUp: (accountId: string) => Promise<void>;
  /** The live VAT number check (VIES), or its stand-in. */
  vatChecker: VatNumberChecker;
}

import type { ChangeFeed } from '../../platform/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Cursors } from '../../platform/http/pagination.ts';
import type { BillingService } from '../billing/service.ts';
import type { CatalogService } from '../catalog/service.ts';
import type { ImagesService } from '../images/service.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { EventsPort } from '../webhooks/events.ts';

/** What the orders module uses from other modules, and nothing more. */
export interface OrdersDeps {
  db: Db;
  clock: Clock;
  cursors: Cursors;
  changes: Pick<ChangeFeed, 'on'>;
  organization: Pick<
    OrganizationService,
    'cachedStore' | 'storeIn' | 'findBrand' | 'nextOrderNumber' | 'takeOrderNumbers'
  >;
  catalog: Pick<
    CatalogService,
    'orderableProducts' | 'packagingForOrganization' | 'reserveStock' | 'releaseStock' | 'shipStock'
  >;
  images: Pick<ImagesService, 'imagesForOrganization'>;
  events: EventsPort;
  billing: Pick<BillingService, 'chargeOrder' | 'chargeCombinedShipment'>;
}

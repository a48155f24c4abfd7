import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { BlobStore } from '../../platform/storage.ts';
import type { BillingService } from '../billing/service.ts';
import type { CatalogService } from '../catalog/service.ts';
import type { ImagesService } from '../images/service.ts';
import type { OrdersService } from '../orders/service.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { ShipmentsService } from '../shipments/service.ts';

/** What the production module uses from other modules, and nothing more. */
export interface ProductionDeps {
  db: Db;
  clock: Clock;
  blobs: BlobStore;
  config: Pick<
    Config,
    | 'publicBaseUrl'
    | 'returnAddress'
    | 'productionRelease'
    | 'productionTimeZone'
    | 'floorConfigPath'
    | 'productionPromiseDays'
    | 'productionHolidays'
  >;
  organization: Pick<OrganizationService, 'storeIn' | 'findBrand'>;
  catalog: Pick<
    CatalogService,
    'findProductData' | 'productShapes' | 'releaseStock' | 'writeOffStock' | 'replaceBlank'
  >;
  billing: Pick<BillingService, 'creditRefund'>;
  images: Pick<ImagesService, 'imageForOrganization' | 'readImage'>;
  orders: Pick<
    OrdersService,
    'onProductionStarted' | 'ordersByIds' | 'orderlines' | 'startProduction' | 'operatorCancel'
  >;
  shipments: Pick<
    ShipmentsService,
    'onShipped' | 'shipment' | 'ordersOfShipment' | 'shipmentAddress' | 'ship' | 'lockCombined'
  >;
}

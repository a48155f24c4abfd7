import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { BlobStore } from '../../platform/storage.ts';
import type { OrdersService } from '../orders/service.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { EventsPort } from '../webhooks/events.ts';
import type { Carrier } from '../carriers/port.ts';

/** What the shipments module uses from other modules, and nothing more. */
export interface ShipmentsDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'publicBaseUrl' | 'returnAddress' | 'parcelLostAfterDays' | 'sendcloud'>;
  log?: { warn: (obj: object, msg: string) => void };
  blobs: BlobStore;
  organization: Pick<OrganizationService, 'storeIn' | 'findBrand'>;
  orders: Pick<
    OrdersService,
    'ordersByIds' | 'ordersOfShipment' | 'addressFields' | 'createAddress' | 'markShipped' | 'orderlines'
  >;
  events: EventsPort;
  /** Who labels tracked parcels (config CARRIER). */
  carrier: Carrier;
}

/** What the shipments routes use from other modules: the test helper starts production. */
export interface ShipmentsRouteDeps {
  orders: Pick<OrdersService, 'startProduction'>;
  config: Pick<Config, 'env'>;
}

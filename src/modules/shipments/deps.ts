import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { OrdersService } from '../orders/service.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { EventsPort } from '../webhooks/events.ts';

/** What the shipments module uses from other modules, and nothing more. */
export interface ShipmentsDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'publicBaseUrl'>;
  organization: Pick<OrganizationService, 'storeRowIn' | 'findBrand'>;
  orders: Pick<OrdersService, 'ordersByIds' | 'ordersOfShipment' | 'addressFields' | 'createAddress' | 'markShipped'>;
  events: EventsPort;
}

/** What the shipments routes use from other modules: the test helper starts production. */
export interface ShipmentsRouteDeps {
  orders: Pick<OrdersService, 'startProduction'>;
  config: Pick<Config, 'env'>;
}

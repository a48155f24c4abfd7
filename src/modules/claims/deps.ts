import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Cursors } from '../../platform/http/pagination.ts';
import type { BlobStore } from '../../platform/storage.ts';
import type { BillingService } from '../billing/service.ts';
import type { OrdersService } from '../orders/service.ts';
import type { ShipmentsService } from '../shipments/service.ts';
import type { ShippingService } from '../shipping/service.ts';
import type { EventsPort } from '../webhooks/events.ts';

/** What the claims module uses from other modules, and nothing more. */
export interface ClaimsDeps {
  db: Db;
  clock: Clock;
  cursors: Cursors;
  blobs: BlobStore;
  config: Pick<Config, 'publicBaseUrl'>;
  log?: FastifyBaseLogger;
  orders: Pick<
    OrdersService,
    'order' | 'orderlines' | 'replacementOf' | 'replacementOrdersOfClaim' | 'createReplacementOrder'
  >;
  shipments: Pick<ShipmentsService, 'shipment' | 'ordersOfShipment' | 'shipmentAddress'>;
  shipping: Pick<ShippingService, 'deliveryWindow'>;
  billing: Pick<BillingService, 'creditClaimRefunds'>;
  events: EventsPort;
}

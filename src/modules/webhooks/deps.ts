import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Cursors } from '../../platform/http/pagination.ts';
import type { RateLimitStore } from '../../platform/ratelimit/index.ts';
import type { CatalogService } from '../catalog/service.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { DeliveryAttempts } from './delivery.ts';
import type { EventsPort, EventsService } from './events.ts';
import type { SecretBox } from './secrets.ts';

/**
 * What the webhooks module uses from other modules, and nothing more: the product.updated events
 * read the product as each organization sees it. (Other modules reach webhooks through `EventsPort`.)
 */
export interface ProductEventDeps {
  db: Db;
  events: Pick<EventsPort, 'record'>;
  catalog: Pick<CatalogService, 'freshProduct'>;
  organization: Pick<OrganizationService, 'listOrganizations'>;
}

/** What the endpoint management, delivery log and events list are given. */
export interface WebhooksDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'allowPrivateTargets' | 'callbackTimeoutMs' | 'webhookTestTimeoutMs'>;
  cursors: Cursors;
  box: SecretBox;
  events: EventsService;
  attempts: DeliveryAttempts;
  rateLimits: RateLimitStore;
}

import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { ChangeFeed } from '../../platform/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Cursors } from '../../platform/http/pagination.ts';
import type { BlobStore } from '../../platform/storage.ts';
import type { OrganizationService } from '../organization/service.ts';

/** What the catalog module uses from other modules, and nothing more. */
export interface CatalogDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  cursors: Cursors;
  blobs: BlobStore;
  config: Pick<Config, 'publicBaseUrl'>;
  changes: ChangeFeed;
  /** Catalog files name the organizations of private productgroups. */
  organization: Pick<OrganizationService, 'findOrganization'>;
}

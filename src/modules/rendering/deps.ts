import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Cursors } from '../../platform/http/pagination.ts';
import type { BlobStore } from '../../platform/storage.ts';
import type { CatalogService } from '../catalog/service.ts';
import type { ImagesService } from '../images/service.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { EventsPort } from '../webhooks/events.ts';

/** What the rendering module uses from other modules, and nothing more. */
export interface RenderingDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  blobs: BlobStore;
  cursors: Cursors;
  /** `visibleProduct` and `visibleProductgroup` throw 404 when the organization cannot see them. */
  catalog: Pick<CatalogService, 'visibleProduct' | 'visibleProductgroup' | 'productShapes'>;
  images: Pick<ImagesService, 'imageForOrganization' | 'readImage'>;
  organization: Pick<OrganizationService, 'organizationFacts'>;
  events: Pick<EventsPort, 'record'> | null;
}

import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Cursors } from '../../platform/http/pagination.ts';
import type { BlobStore } from '../../platform/storage.ts';

/** What the images module is given: platform pieces only, it uses no other module. */
export interface ImagesDeps {
  db: Db;
  clock: Clock;
  cursors: Cursors;
  blobs: BlobStore;
}

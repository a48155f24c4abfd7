import type { Config } from '../../config.ts';
import type { ChangeFeed } from '../../platform/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { KeyCache } from '../../platform/http/auth.ts';
import type { Cursors } from '../../platform/http/pagination.ts';

/** What the organization module is given: platform pieces only, it uses no other module. */
export interface OrganizationDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'env' | 'allowPrivateTargets'>;
  cursors: Cursors;
  /** The key cache is built from this service's key resolver, hence given late. */
  keys: () => KeyCache;
  changes: ChangeFeed;
}

import type { ChangeFeed } from '../../platform/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Worker } from '../../platform/jobs/worker.ts';

/** What the test clocks module is given: platform pieces only, it uses no other module. */
export interface TestClocksDeps {
  db: Db;
  clock: Clock;
  worker: Worker;
  changes: ChangeFeed;
}

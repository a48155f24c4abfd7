/**
 * Preloaded into each test file's process by `npm test` and `npm run test:databases`
 * (scripts/node-test.ts): its pixel threads go to nice 10, not SCHED_IDLE (decision 0523). Two test
 * files and their Chromium run side by side in one scheduling group, often beside other work on the
 * machine; at SCHED_IDLE a file's renders wait for all of it. test/rendering/priority.test.ts sets
 * the `idle` policy back and proves it.
 */
import { setPixelThreadPolicy } from '../../src/platform/background-threads.ts';

setPixelThreadPolicy('nice');

/**
 * Preloaded into each test file's process by `npm test` and `npm run test:databases`
 * (scripts/node-test.ts): its pixel threads go to nice 10, not SCHED_IDLE (decision 0523). A pass
 * shares its scheduling group with whatever else was started from the same terminal (a benchmark run
 * beside it); at SCHED_IDLE a file's renders wait for all of that work. test/rendering/priority.test.ts
 * sets the `idle` policy back and proves it.
 */
import { setPixelThreadPolicy } from '../../src/platform/background-threads.ts';

setPixelThreadPolicy('nice');

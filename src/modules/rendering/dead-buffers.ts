import { collectNow, countThreadCollection } from '../../platform/memory/collect.ts';
import { SPARE_MAX_BYTES, collectOnThreads } from './pixel-threads.ts';
import { PREPARED_MAX_BYTES } from './template-cache.ts';

/**
 * Array buffers beyond what renders can hold alive: the decoded templates and the spares at their
 * caps, and one 2000 px render's leases and the template it may be drawing (~32 MB). More than this
 * is dead buffers waiting for a collection: outputs, textures and the layers of templates the cache
 * let go. V8 frees them only once the event loop and every compositor thread that was posted a view
 * have collected; shared buffers count towards no collection, and a thread that warps allocates
 * next to nothing on its heap, so when one artwork renders in every scene they reach 220-230 MB
 * (docs/performance.md#memory).
 */
export const PILE_BYTES = PREPARED_MAX_BYTES + SPARE_MAX_BYTES + 32 * 1024 * 1024;
/** At most one collection this often: the event loop's full collection stalls it for ~45-60 ms. */
export const COLLECT_EVERY_MS = 2000;

let lastCollect = Number.NEGATIVE_INFINITY;
/** The threads alone collected last time, and the pile is still there. */
let threadsCollected = false;

/**
 * After a render: when the process holds more array buffers than renders keep alive, the compositor
 * threads collect (their heaps are a few MB: the event loop does not wait). The event loop's own
 * collections, which come every second or two under API traffic, then free what the threads let
 * go. A pile still there on the next check (COLLECT_EVERY_MS later at the earliest) is collected on
 * the event loop too. Answers where it collected, if anywhere.
 */
export async function collectDeadBuffers(now = performance.now()): Promise<'threads' | 'everywhere' | null> {
  if (process.memoryUsage().arrayBuffers <= PILE_BYTES) {
    threadsCollected = false;
    return null;
  }
  if (now - lastCollect < COLLECT_EVERY_MS) return null;
  lastCollect = now;
  countThreadCollection();
  await collectOnThreads();
  if (!threadsCollected) {
    threadsCollected = true;
    return 'threads';
  }
  threadsCollected = false;
  collectNow();
  return 'everywhere';
}

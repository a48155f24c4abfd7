import { collectNow } from '../../platform/memory/collect.ts';
import { SPARE_MAX_BYTES, collectOnThreads } from './pixel-threads.ts';
import { PREPARED_MAX_BYTES } from './template-cache.ts';

/**
 * Array buffers beyond what renders can hold alive: the decoded templates and the spares at their
 * caps, and one 2000 px render's leases and the template it may be drawing (~32 MB). More than this
 * is dead buffers waiting for a collection: outputs, textures and the layers of templates the cache
 * let go. V8 frees them only once the event loop and every compositor thread that was posted a view
 * have collected, and neither allocates much on its heap while renders run, so on a busy machine
 * they piled up to 186-265 MB before that happened (docs/performance.md#memory).
 */
export const PILE_BYTES = PREPARED_MAX_BYTES + SPARE_MAX_BYTES + 32 * 1024 * 1024;
/** At most one collection this often: a full collection of the event loop's heap takes 10-40 ms. */
export const COLLECT_EVERY_MS = 2000;

let lastCollect = Number.NEGATIVE_INFINITY;

/**
 * After a render: when the process holds more array buffers than renders keep alive, the compositor
 * threads and then the event loop collect, and the dead ones are freed. Answers whether it collected.
 */
export async function collectDeadBuffers(now = performance.now()): Promise<boolean> {
  if (process.memoryUsage().arrayBuffers <= PILE_BYTES || now - lastCollect < COLLECT_EVERY_MS) return false;
  lastCollect = now;
  await collectOnThreads();
  collectNow();
  return true;
}

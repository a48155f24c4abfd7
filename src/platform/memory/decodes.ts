/**
 * The admission of image decodes (`IMAGE_MEMORY_MB`, docs/memory.md). Decodes run at once only while
 * their estimated memory fits this budget, and at most MAX_PARALLEL_DECODES of them: ten 7000x7000
 * progressive JPEGs arriving together would otherwise hold a gigabyte. The caller estimates each
 * decode's peak from the image's header and refuses one that alone needs more than the budget.
 */

const MB = 1024 * 1024;

/** Several large decodes at once would multiply memory; the rest wait their turn. */
const MAX_PARALLEL_DECODES = 2;

let memoryBudget = 200 * MB;
let running = 0;
let reserved = 0;
let peakReserved = 0;
const waiting: Array<{ bytes: number; go: () => void }> = [];

/** Sets the memory decodes may hold together (startRuntime passes `IMAGE_MEMORY_MB`). */
export function setImageMemoryBudget(megabytes: number): void {
  memoryBudget = megabytes * MB;
}

/** The memory decodes may hold together, in bytes. */
export function imageMemoryBudget(): number {
  return memoryBudget;
}

/** Memory decodes hold now and the most they held together since the last reset (metrics, tests). */
export function imageDecodeMemory(opts: { resetPeak?: boolean } = {}): { reserved: number; peak: number } {
  const out = { reserved, peak: peakReserved };
  if (opts.resetPeak) peakReserved = reserved;
  return out;
}

function admit(): void {
  // First come, first served: a large decode at the head is not overtaken for ever by small ones.
  while (waiting.length > 0 && running < MAX_PARALLEL_DECODES && reserved + waiting[0].bytes <= memoryBudget) {
    const next = waiting.shift()!;
    running++;
    reserved += next.bytes;
    peakReserved = Math.max(peakReserved, reserved);
    next.go();
  }
}

/** Runs `fn` once `bytes` (at most the whole budget) fit beside the decodes already running. */
export async function withDecodeSlot<T>(bytes: number, fn: () => Promise<T>): Promise<T> {
  const need = Math.min(bytes, memoryBudget);
  await new Promise<void>((go) => {
    waiting.push({ bytes: need, go });
    admit();
  });
  try {
    return await fn();
  } finally {
    running--;
    reserved -= need;
    admit();
  }
}

import { setFlagsFromString } from 'node:v8';

/**
 * Bounds how far V8 lets the JavaScript heap grow before a full collection: `percent` above what
 * survived the last one (V8's `--heap-growing-percent`, which it reads at every collection, so it
 * applies from here on, to the event loop and to every worker thread). Left to itself, V8 lets a
 * heap with ~30 MB alive grow to ~130 MB between full collections while list pages promote their
 * short-lived rows (docs/memory.md): ~90 MB of resident memory that holds only
 * garbage. At 50 % the event loop collects every ~1.5 s instead of every ~8 s under that load, for
 * ~1-2 % of a core. 0 keeps V8's own rule.
 */
export function boundHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;
let forced = 0;

/**
 * A full collection of this thread's heap, now. V8 frees a SharedArrayBuffer's memory only when
 * every isolate that holds a view of it has collected that view, and image work allocates so little
 * on the JavaScript heap that those collections can be seconds apart while tens of MB of pixels
 * wait. `--expose-gc` set at run time gives contexts made afterwards V8's `gc`; the flag changes
 * nothing else.
 */
export function collectNow(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  forced++;
  gc();
}

/** Full collections this thread asked for since it started (metrics, tests). */
export function forcedCollections(): number {
  return forced;
}

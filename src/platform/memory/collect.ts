import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;
/** Full collections asked for since the process started: of this thread's heap, and of other threads'. */
const forced = { eventLoop: 0, threads: 0 };

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
  forced.eventLoop++;
  gc();
}

/** Counts a full collection asked of the worker threads (each runs `collectNow` on its own heap). */
export function countThreadCollection(): void {
  forced.threads++;
}

/** Full collections asked for since the process started (metrics, tests). */
export function forcedCollections(): Readonly<typeof forced> {
  return { ...forced };
}

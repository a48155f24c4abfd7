import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';

type TrimCall = { async(pad: number, done: (err: unknown, released: number) => void): void };

/**
 * glibc's `malloc_trim`, or null where there is none (macOS, Windows, musl): the caller then does
 * without. koffi calls it: Node has no foreign-function interface of its own, and a native addon
 * would need a compiler on every machine that installs the service.
 */
function loadMallocTrim(): TrimCall | null {
  if (process.platform !== 'linux') return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as {
      load(lib: string): { func(signature: string): TrimCall };
    };
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
  } catch {
    return null;
  }
}

export interface MemoryTrim {
  /** Gives free C-heap pages back now; resolves with whether glibc released any. */
  trim(): Promise<boolean>;
  stop(): void;
}

/**
 * Every `seconds`, hands the pages glibc holds free back to the system. glibc returns freed memory
 * only from the top of each arena; what libvips' threads, V8's WebAssembly compilers and the
 * database thread free in the middle stays resident: 50-70 MB after an embedded-database start,
 * ~15 MB of a run of renders' peak (docs/memory.md), none of it in use.
 * `malloc_trim(0)` walks every arena and releases those pages (0.5-1 ms on a steady node, ~10 ms
 * after start-up); it runs on libuv's thread pool, so the event loop does not wait for it. 0 or no
 * glibc: nothing runs and `trim` resolves false.
 */
export function startMemoryTrim(seconds: number, log?: FastifyBaseLogger): MemoryTrim {
  const call = seconds > 0 ? loadMallocTrim() : null;
  if (seconds > 0 && !call) log?.debug('malloc_trim is not available here: freed C-heap pages stay with the allocator');
  let running: Promise<boolean> | null = null;
  const trim = (): Promise<boolean> => {
    if (!call) return Promise.resolve(false);
    running ??= new Promise<boolean>((resolve) => {
      const before = process.memoryUsage.rss();
      call.async(0, (err, released) => {
        running = null;
        if (err) log?.warn({ err }, 'malloc_trim failed');
        else log?.debug({ rssBeforeMb: mb(before), rssAfterMb: mb(process.memoryUsage.rss()) }, 'memory trimmed');
        resolve(!err && released === 1);
      });
    });
    return running;
  };
  const timer = call ? setInterval(() => void trim(), seconds * 1000).unref() : null;
  return { trim, stop: () => timer && clearInterval(timer) };
}

const mb = (bytes: number) => Math.round(bytes / 1048576);

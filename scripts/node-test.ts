/**
 * Node's arguments for a pass of test files through scripts/ts-loader.mjs, reported by scripts/test-reporter.mjs with
 * each file's CPU time (scripts/test-cpu.mjs, preloaded into every file's process). `npm test` spells
 * the same in package.json, with the pixel threads at nice 10 (NICE_PIXEL_THREADS).
 */

/** Preload that keeps the pixel threads of a pass's files at nice 10, not SCHED_IDLE (decision 0523). */
export const NICE_PIXEL_THREADS = './test/support/nice-pixel-threads.ts';

export function nodeTestArgs(
  files: string[],
  opts: { concurrency: number; timeoutMs?: number; nicePixelThreads?: boolean },
): string[] {
  return [
    '--import',
    './scripts/ts-loader.mjs',
    '--import',
    './scripts/test-cpu.mjs',
    ...(opts.nicePixelThreads ? ['--import', NICE_PIXEL_THREADS] : []),
    '--test',
    `--test-concurrency=${opts.concurrency}`,
    ...(opts.timeoutMs ? [`--test-timeout=${opts.timeoutMs}`] : []),
    '--test-reporter=./scripts/test-reporter.mjs',
    ...files,
  ];
}

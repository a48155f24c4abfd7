/**
 * Node's arguments for a pass of test files through scripts/ts-loader.mjs, reported by scripts/test-reporter.mjs with
 * the CPU time of each process (scripts/test-cpu.mjs, preloaded into every process of the pass), and
 * the runner of `npm test` and `npm run test:databases`: most files run several to a process
 * (scripts/test-groups.ts). POD_TEST_GROUPS=off runs every file in a process of its own;
 * POD_TEST_GROUPS=reverse runs each group's files last to first.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { groupFiles, testFiles, writeEntries } from './test-groups.ts';

export { testFiles };

const ROOT = join(import.meta.dirname, '..');

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

/** Runs a pass of test files, two processes at a time, grouped unless POD_TEST_GROUPS=off; its exit status. */
export function runTestPass(files: string[]): number {
  const mode = process.env.POD_TEST_GROUPS ?? 'on';
  const dir = join(ROOT, 'test-artifacts', 'test-groups', String(process.pid));
  const paths = mode === 'off' ? files : writeEntries(groupFiles(files), dir, { reverse: mode === 'reverse' });
  try {
    // Node's --test-timeout bounds each test and each process alike; a group's process runs up
    // to twelve files, so a grouped pass gives its processes 30 minutes, not 15.
    const timeoutMs = mode === 'off' ? 900_000 : 1_800_000;
    const res = spawnSync(
      process.execPath,
      nodeTestArgs(paths, { concurrency: 2, timeoutMs, nicePixelThreads: true }),
      { cwd: ROOT, stdio: 'inherit', env: process.env },
    );
    return res.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// `npm test [files…]`: the named test files, or all of them.
if (process.argv[1] && relative(ROOT, process.argv[1]) === 'scripts/node-test.ts') {
  const named = process.argv.slice(2);
  process.exitCode = runTestPass(named.length > 0 ? named : testFiles());
}

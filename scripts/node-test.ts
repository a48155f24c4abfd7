/**
 * Node's arguments for a pass of test files through tsx, reported by scripts/test-reporter.mjs with
 * each file's CPU time (scripts/test-cpu.mjs, preloaded into every file's process). `npm test` spells
 * the same in package.json.
 */
export function nodeTestArgs(files: string[], opts: { concurrency: number; timeoutMs?: number }): string[] {
  return [
    '--import',
    'tsx',
    '--import',
    './scripts/test-cpu.mjs',
    '--test',
    `--test-concurrency=${opts.concurrency}`,
    ...(opts.timeoutMs ? [`--test-timeout=${opts.timeoutMs}`] : []),
    '--test-reporter=./scripts/test-reporter.mjs',
    ...files,
  ];
}

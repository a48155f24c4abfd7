/**
 * `npm run test:reliability`: runs every test/reliability/*.reliability.ts file (they are not
 * `*.test.ts`, so `npm test` leaves them out), then prints the figures they recorded in
 * test-artifacts/reliability/figures.jsonl. Without `--run` it only prints the summary.
 *
 * The files listed in ALONE run one at a time after the others, which run two at a time (one per
 * core): their assertions are about answers (no 5xx, no item lost, no leak, isolation), which another
 * file's load can slow but not change, and much of their time is spent waiting on processes they
 * start, kill and restart.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { ensureBuilt } from './build.mjs';
import { nodeTestArgs } from './node-test.ts';

const ROOT = join(import.meta.dirname, '..');
const SUITE = join(ROOT, 'test', 'reliability');
const FIGURES = join(ROOT, 'test-artifacts', 'reliability', 'figures.jsonl');

/**
 * Files whose assertions or summary figures are a latency ratio or a server's memory under load, or
 * that must finish work within a time budget, with what they measure: another file running beside
 * them would move those figures or run the budget out.
 */
export const ALONE: Record<string, string> = {
  'fairness.reliability.ts': "another organization's render latency while one floods the queue, over it idle",
  'tenant-attacks.reliability.ts': "another organization's latency under each hostile load, over it idle",
  'memory.reliability.ts': "a server's peak resident memory under concurrent large uploads",
  'soak.reliability.ts': "a server's peak and at-rest resident memory over a mixed soak",
  'scaleout.reliability.ts':
    'renders on two workers completed within a bounded wait, and an exact count of refusals across two API processes',
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.reliability.ts') ? [join(dir, e.name)] : [],
    )
    .sort();
}

/** The worst ratio of each attack shape, e.g. "render backlog 1.21x, slow deliveries 1.04x (target ≤ 2x each)". */
function fairness(lines: Array<Record<string, any>>): string {
  const worst = new Map<string, number>();
  for (const l of lines)
    for (const [shape, ratio] of Object.entries(l.fairness ?? {}))
      if (typeof ratio === 'number') worst.set(shape, Math.max(worst.get(shape) ?? 0, ratio));
  if (worst.size === 0) return 'not measured';
  const over = [...worst].filter(([, r]) => r > 2).map(([s]) => s);
  const each = [...worst].map(([s, r]) => `${s} ${r.toFixed(2)}x`).join(', ');
  return `${each} (target ≤ 2x each${over.length ? `; OVER: ${over.join(', ')}` : ''})`;
}

function summary(): void {
  const lines = existsSync(FIGURES)
    ? readFileSync(FIGURES, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  const sum = (k: string) => lines.reduce((n, l) => n + (typeof l[k] === 'number' ? l[k] : 0), 0);
  const max = (k: string) => lines.reduce((n, l) => Math.max(n, typeof l[k] === 'number' ? l[k] : 0), 0);
  const peak = lines.filter((l) => l.memoryPeakMb === max('memoryPeakMb'))[0];
  const testPeak = lines.filter((l) => l.testProcessPeakMb === max('testProcessPeakMb'))[0];
  const rows: Array<[string, number | string]> = [
    ['requests fuzzed', sum('requestsFuzzed')],
    ['5xx found', sum('fiveXX')],
    ['undocumented statuses', sum('undocumented')],
    ['isolation cases checked', sum('isolationCases')],
    ['SSRF targets refused', sum('ssrfRefused')],
    ['secrets searched (db and logs)', sum('secretsScanned')],
    ['secrets found in plain text', sum('secretsLeaked')],
    ['faults injected', sum('faultsInjected')],
    ['items lost', sum('itemsLost')],
    ["fairness: other tenant's latency under attack / idle", fairness(lines)],
    [
      'sign-in: password checks of 150 concurrent guesses',
      lines.some((l) => 'signInChecks' in l) ? `${max('signInChecks')} (limit 5)` : 'not measured',
    ],
    [
      'rolling restart: failed requests',
      lines.some((l) => 'rollingRequests' in l) ? `${sum('rollingFailed')} of ${sum('rollingRequests')}` : 'not run',
    ],
    [
      'peak resident memory of a server (MB)',
      peak ? `${peak.memoryPeakMb} (${peak.file}; target < 512)` : 'not measured',
    ],
    [
      'memory at rest after the mixed soak (MB)',
      lines.some((l) => 'memoryAtRestMb' in l) ? `${max('memoryAtRestMb')} (target < 512)` : 'not measured',
    ],
    [
      'peak of a test process hosting its server (MB)',
      testPeak ? `${testPeak.testProcessPeakMb} (${testPeak.file})` : 'not measured',
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const out = ['', 'Reliability summary', '-------------------', ...rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`)];
  const notes = lines.flatMap((l) => l.notes ?? []);
  const skipped = lines.flatMap((l) => (l.skipped ?? []).map((s: string) => `${l.file}: ${s}`));
  if (notes.length) out.push('', ...notes.map((n: string) => `  ${n}`));
  if (skipped.length) out.push('', 'Skipped:', ...skipped.map((s: string) => `  ${s}`));
  if (lines.length === 0) out.push('', '(no figures recorded: did the suite run?)');
  process.stdout.write(`${out.join('\n')}\n\n`);
}

if (process.argv.includes('--run')) {
  rmSync(FIGURES, { force: true });
  // The suite's servers run the compiled build: build it once here, not inside a timed test.
  ensureBuilt();
  const list = files(SUITE);
  const missing = Object.keys(ALONE).filter((name) => !list.some((f) => basename(f) === name));
  if (missing.length > 0) throw new Error(`ALONE names files that do not exist: ${missing.join(', ')}`);
  const alone = list.filter((f) => basename(f) in ALONE);
  const paired = list.filter((f) => !(basename(f) in ALONE));
  let failed = false;
  for (const [group, concurrency] of [
    [paired, 2],
    [alone, 1],
  ] as const) {
    const names = group.map((f) => relative(ROOT, f)).join(', ');
    process.stdout.write(`Running ${group.length} reliability files, ${concurrency} at a time: ${names}\n`);
    const res = spawnSync(process.execPath, nodeTestArgs(group, { concurrency }), {
      cwd: ROOT,
      stdio: 'inherit',
      env: process.env,
    });
    failed ||= res.status !== 0;
  }
  summary();
  process.exit(failed ? 1 : 0);
} else {
  summary();
}

/**
 * Grouped test passes (decision 0540): `npm test` and `npm run test:databases` run most test files
 * several to a process, so a group pays node's start, the load hooks, the app's imports and the
 * embedded database's template once. A group is a generated entry that imports its files in order;
 * node's runner still names the file each test comes from (the place its `describe` is called), so
 * the reporter attributes every failure to its own file. The files in ALONE run one to a process.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');

/** The test files under `dir`, as paths from the repository's root, sorted. */
export function testFiles(dir = join(ROOT, 'test')): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
    )
    .map((f) => relative(ROOT, f))
    .sort();
}

/**
 * Files that run in a process of their own, with why: they measure their own process (memory,
 * thread priority, timing), change what the whole process shares (pixel thread policy, mocks of
 * globals, process listeners), register hooks at the top level (node runs those around every test
 * in the process), await at the top level, or cost so much CPU that they are a lane's share alone.
 */
export const ALONE: Record<string, string> = {
  'test/platform/heap.test.ts': "the heap bound of its own process's allocations",
  'test/platform/memory-trim.test.ts': "its own process's resident memory after a C heap trim",
  'test/dashboard/logo-bounds.test.ts': "its own process's resident memory growth over many logos",
  'test/rendering/dead-buffers.test.ts': "its own process's array buffers before and after collections",
  'test/images/upload.test.ts': "the event loop's delay in its own process while an upload decodes",
  'test/images/background.test.ts': "the nice value of its process's libvips threads and event loop",
  'test/rendering/priority.test.ts': 'sets the pixel threads of its process to SCHED_IDLE and reads their policy',
  'test/rendering/compositor.test.ts':
    "mocks the process's timers in its idle tests; one of the costliest files by CPU",
  'test/webhooks/delivery.test.ts': 'mocks Date.now for the whole process during its tests',
  'test/platform/together.test.ts': "listens for the process's warnings and expects none from its own work",
  'test/platform/docs.browser.test.ts': 'top-level hooks; one of the costliest files by CPU (Chromium)',
  'test/platform/storage.test.ts': 'top-level hooks and a top-level await',
  'test/rendering/library.test.ts': 'top-level hooks',
  'test/sdk/lifecycle.test.ts': 'top-level hooks',
  'test/sdk/features.test.ts': 'top-level hooks',
  'test/sdk/client.test.ts': 'top-level hooks',
  'test/sdk/ratelimit.test.ts': 'top-level hooks',
  'test/sdk/example.test.ts': 'top-level hooks',
  'test/platform/job-organizations.test.ts': 'a top-level await',
  'test/platform/startup-imports.test.ts': 'a top-level await; counts the modules a fresh process loads',
  'test/sdk/package.test.ts': 'a top-level await',
  'test/dashboard/dashboard.browser.test.ts': 'one of the costliest files by CPU (Chromium)',
  'test/platform/packaging.test.ts': 'one of the costliest files by CPU (builds and starts the compiled server)',
  'test/platform/hostile-clients.test.ts': 'one of the costliest files by CPU',
};

/** CPU seconds of each file run alone, as measured (scripts/test-cpu-seconds.json). */
export function cpuSeconds(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'scripts', 'test-cpu-seconds.json'), 'utf8'));
  } catch {
    return {};
  }
}

/**
 * A file's CPU seconds alone: measured, else what such files cost, ~10 s for one that starts the
 * test app or a test database (node, the imports, a cloned database) and ~3 s for one that does not.
 */
function estimate(file: string, measured: Record<string, number>): number {
  if (file in measured) return measured[file];
  const code = readFileSync(resolve(ROOT, file), 'utf8');
  return /support\/(app|db)\.ts'/.test(code) ? 10 : 3;
}

/** What a file costs in a group: its CPU alone less the start a group pays once. */
const START_S = 5;
/** A group's CPU seconds: small enough that the two lanes end close together, large enough to share the start. */
const GROUP_S = 75;
/** At most this many files share a process, which bounds a group's memory. */
const GROUP_FILES = 12;

export type Unit = { files: string[]; cost: number };

/**
 * The processes of a pass: each ALONE file, and the others in path order (files of a folder
 * share their imports) cut into groups of about GROUP_S CPU seconds; costliest first, so the
 * runner's two lanes take the long ones first and end together.
 */
export function groupFiles(files: string[], measured: Record<string, number> = cpuSeconds()): Unit[] {
  const cost = (f: string) => estimate(f, measured);
  const units: Unit[] = [];
  let group: Unit = { files: [], cost: START_S };
  for (const f of [...files].sort()) {
    if (f in ALONE) {
      units.push({ files: [f], cost: cost(f) });
      continue;
    }
    const more = Math.max(cost(f) - START_S, 0.5);
    if (group.files.length > 0 && (group.cost + more > GROUP_S || group.files.length >= GROUP_FILES)) {
      units.push(group);
      group = { files: [], cost: START_S };
    }
    group.files.push(f);
    group.cost += more;
  }
  if (group.files.length > 0) units.push(group);
  return units.sort((a, b) => b.cost - a.cost);
}

/**
 * The paths node's runner is given: a lone file's own, a group's generated entry in `dir`. With
 * `reverse`, each group imports its files last to first (a check for order dependence).
 */
export function writeEntries(units: Unit[], dir: string, opts: { reverse?: boolean } = {}): string[] {
  mkdirSync(dir, { recursive: true });
  return units.map((u, i) => {
    if (u.files.length === 1) return u.files[0];
    const files = opts.reverse ? [...u.files].reverse() : u.files;
    const entry = join(dir, `group-${String(i + 1).padStart(2, '0')}.test.mjs`);
    const lines = [
      '// Generated by scripts/test-groups.ts: one process for these test files, in this order.',
      `globalThis[Symbol.for('pod.testGroup')] = ${JSON.stringify(files)};`,
      ...files.map((f) => `import ${JSON.stringify(pathToFileURL(resolve(ROOT, f)).href)};`),
      '',
    ];
    writeFileSync(entry, lines.join('\n'));
    return relative(ROOT, entry);
  });
}

/**
 * `node --import ./scripts/ts-loader.mjs scripts/test-groups.ts LOG`: records in
 * scripts/test-cpu-seconds.json the CPU seconds of each file that LOG, the CPU log of a pass, shows
 * run alone (`POD_TEST_GROUPS=off POD_TEST_CPU_LOG=/tmp/cpu.jsonl npm test [files…]`).
 */
if (process.argv[1] && relative(ROOT, process.argv[1]) === 'scripts/test-groups.ts') {
  const costs = cpuSeconds();
  for (const line of readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(line);
    if (!r.files) costs[relative(ROOT, r.file)] = Math.round((r.own + r.children) * 10) / 10;
  }
  const sorted = Object.fromEntries(Object.entries(costs).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(ROOT, 'scripts', 'test-cpu-seconds.json'), `${JSON.stringify(sorted, null, 2)}\n`);
}

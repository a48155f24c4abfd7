/**
 * The test runner's reporter for `npm test`, `npm run test:databases` and `npm run test:reliability`:
 * node's own output (spec on a terminal, TAP otherwise, as `node --test` picks when no reporter is
 * named), then the costliest test processes (a file's, or a group's: scripts/test-groups.ts). With
 * scripts/test-cpu.mjs preloaded, a process's cost is its CPU time and that of the processes it
 * started (what a shared machine cannot inflate the way it inflates wall time); without it, the time
 * spent in its tests and hooks (a file's app set-up runs in its `before` hooks).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { spec, tap } from 'node:test/reporters';

const SHOWN = 15;

// Loaded before the runner starts the test files: their processes inherit where to write their CPU time.
// A log named by the caller is kept (scripts/test-groups.ts reads one for the CPU of each file).
const ownLog = !process.env.POD_TEST_CPU_LOG;
process.env.POD_TEST_CPU_LOG ??= join(tmpdir(), `pod-test-cpu-${process.pid}-${Date.now()}.jsonl`);

/** CPU seconds (own, children) and process wall seconds per file, from scripts/test-cpu.mjs's log. */
function cpuByFile() {
  const log = process.env.POD_TEST_CPU_LOG;
  const byFile = new Map();
  if (!log || !existsSync(log)) return byFile;
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(line);
    byFile.set(r.file, r);
  }
  if (ownLog) rmSync(log, { force: true });
  return byFile;
}

/**
 * One row per process: a lone file's, or a group's (scripts/test-groups.ts), whose tests time is
 * its files' together and whose failures name the files that failed.
 * @param {Map<string, {ms: number, failed: boolean}>} files by absolute path
 * @param {Map<string, any>} cpu by the path of the process's entry
 */
function processRows(files, cpu) {
  const rows = [];
  const grouped = new Set();
  for (const [entry, c] of cpu) {
    if (!c.files) continue;
    /** @type {string[]} */
    const names = c.files;
    const own = names.map((f) => ({ f, r: files.get(join(process.cwd(), f)) }));
    for (const { f } of own) grouped.add(join(process.cwd(), f));
    const failed = own.filter(({ r }) => r?.failed).map(({ f }) => f);
    rows.push({
      file: `${relative(process.cwd(), entry)} (${names.length} files${failed.length ? `; failed: ${failed.join(', ')}` : ''})`,
      ms: own.reduce((sum, { r }) => sum + (r?.ms ?? 0), 0),
      // The entry's own failure: one of its files does not load.
      failed: files.get(entry)?.failed ?? false,
      cpu: c.own + c.children,
      c,
    });
  }
  for (const [file, f] of files) {
    if (grouped.has(file) || cpu.get(file)?.files) continue;
    const c = cpu.get(file);
    rows.push({ file: relative(process.cwd(), file), ...f, cpu: c ? c.own + c.children : null, c });
  }
  return rows;
}

const s = (/** @type {number} */ seconds) => seconds.toFixed(1).padStart(7);

/** @param {AsyncIterable<any>} source the test runner's events */
export default async function* reporter(source) {
  const files = new Map();
  async function* recorded() {
    for await (const event of source) {
      const d = event.data;
      if ((event.type === 'test:pass' || event.type === 'test:fail') && d.nesting === 0 && d.file) {
        const f = files.get(d.file) ?? { ms: 0, failed: false };
        f.ms += d.details?.duration_ms ?? 0;
        f.failed ||= event.type === 'test:fail';
        files.set(d.file, f);
      }
      yield event;
    }
  }
  if (process.stdout.isTTY) yield* Readable.from(recorded()).pipe(new spec());
  else yield* tap(recorded());

  if (files.size === 0) return;
  const cpu = cpuByFile();
  const rows = processRows(files, cpu);
  const tests = rows.reduce((sum, r) => sum + r.ms, 0) / 1000;
  if (cpu.size === 0) {
    const lines = rows
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN)
      .map((r) => `#   ${s(r.ms / 1000)} s  ${r.file}${r.failed ? ' (failed)' : ''}`);
    yield `# slowest ${lines.length} of ${rows.length} test files (tests and hooks; all files: ${tests.toFixed(0)} s)\n${lines.join('\n')}\n`;
    return;
  }
  const total = rows.reduce((sum, r) => sum + (r.cpu ?? 0), 0);
  const lines = rows
    .sort((a, b) => (b.cpu ?? -1) - (a.cpu ?? -1) || b.ms - a.ms)
    .slice(0, SHOWN)
    .map((r) =>
      r.c
        ? `#   ${s(r.cpu)}    ${s(r.c.children)} ${s(r.c.wall)}  ${s(r.ms / 1000)}  ${r.file}${r.failed ? ' (failed)' : ''}`
        : `#   ${'?'.padStart(7)}    ${''.padStart(7)} ${''.padStart(7)}  ${s(r.ms / 1000)}  ${r.file} (no CPU figure)`,
    );
  yield [
    `# costliest ${lines.length} of ${rows.length} test processes by CPU time; all: ${total.toFixed(0)} s CPU, ${tests.toFixed(0)} s in tests and hooks`,
    '#     CPU s children s  wall s  tests s  (CPU: the process and its children; tests: in tests and hooks)',
    ...lines,
    '',
  ].join('\n');
}

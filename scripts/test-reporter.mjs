/**
 * The test runner's reporter for `npm test` and `npm run test:databases`: node's own output (spec on
 * a terminal, TAP otherwise, as `node --test` picks when no reporter is named), then the slowest
 * test files with the time spent in their tests and hooks (a file's app set-up runs in its `before`
 * hooks), so a CI log shows where the time of a pass goes.
 */
import { Readable } from 'node:stream';
import { relative } from 'node:path';
import { spec, tap } from 'node:test/reporters';

const SHOWN = 15;

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

  const slowest = [...files].sort((a, b) => b[1].ms - a[1].ms).slice(0, SHOWN);
  if (slowest.length === 0) return;
  const total = [...files.values()].reduce((sum, f) => sum + f.ms, 0);
  const lines = slowest.map(
    ([file, f]) =>
      `#   ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${relative(process.cwd(), file)}${f.failed ? ' (failed)' : ''}`,
  );
  yield `# slowest ${slowest.length} of ${files.size} test files (tests and hooks; all files: ${(total / 1000).toFixed(0)} s)\n${lines.join('\n')}\n`;
}

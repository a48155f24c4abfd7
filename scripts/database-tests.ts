/**
 * `npm run test:databases`: the PostgreSQL + Redis pass of CI. `npm test` runs every test file on the
 * embedded database; TEST_DATABASE_URL and REDIS_URL change the behaviour only of the files that can
 * reach them, so this pass runs those files and leaves out the rest (pure rules, pixels, PDFs, parsers).
 *
 * A file is picked when a module it loads at run time (its own code, test/support, src; `import type`
 * and unused imports excluded, as tsx drops them too) reads one of those variables, loads the whole
 * configuration from the process environment, or starts a child process (which inherits the
 * environment), unless that child is one of the known tools listed in CHILD_WITHOUT_DATABASE.
 *
 * Without `--run` it prints the picked files and why; `--list` prints only the paths.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { runTestPass, testFiles } from './node-test.ts';

export { testFiles };

const ROOT = join(import.meta.dirname, '..');

/** Modules whose child processes never open PostgreSQL or Redis, with what they start. */
export const CHILD_WITHOUT_DATABASE: Record<string, string> = {
  'src/platform/db/pglite.ts': "a Node process that creates an embedded database's data directory",
  'test/support/pdf-tools.ts': 'poppler-utils (pdftotext, pdfinfo, pdftoppm, pdfimages, pdffonts)',
  'test/support/ubl-tools.ts': 'xmllint and Java (Saxon-HE)',
  'src/platform/background-threads.ts': "a shell that runs util-linux's chrt on the pixel threads",
  'test/platform/no-history.test.ts': 'git ls-files',
  'scripts/build.mjs': 'the TypeScript compiler (dist/ and the SDK)',
  'test/platform/packaging.test.ts':
    'the compiled server and podctl with an environment of their own (PATH, HOME, DATA_DIR: the embedded database), a thread check',
  'test/rendering/leather.test.ts': 'a Node process that draws leather plates and renders',
  'test/platform/heap.test.ts': 'a Node process that measures the heap bound',
  'test/platform/memory-trim.test.ts': 'a Node process that measures the C heap trim',
  'test/platform/test-groups.test.ts': "node's test runner on two small test files of its own",
};

/** What in a module's own code lets a test file's behaviour depend on the PostgreSQL + Redis pass. */
const READS_SERVICES =
  /process\.env\.(TEST_DATABASE_URL|REDIS_URL)\b|process\.env\[['"](TEST_DATABASE_URL|REDIS_URL)['"]\]/;
const READS_WHOLE_CONFIG = /\bloadConfig(OrExit)?\(\s*(\)|process\.env|\{\s*\.\.\.process\.env)/;

/** Why a module, by its own code, makes a file that loads it depend on the services; null when it does not. */
function ownReason(path: string, input: Metafile['inputs'][string]): string | null {
  if (path === 'src/config.ts') return null; // the registry: only loadConfig() with no argument reads the environment
  const code = readFileSync(join(ROOT, path), 'utf8');
  if (READS_SERVICES.test(code)) return `${path} reads TEST_DATABASE_URL or REDIS_URL`;
  if (READS_WHOLE_CONFIG.test(code)) return `${path} loads the configuration from the environment`;
  const spawns = input.imports.some((i) => i.path === 'node:child_process' || i.path === 'child_process');
  if (spawns && !(path in CHILD_WITHOUT_DATABASE)) return `${path} starts child processes`;
  return null;
}

/** Each test file that can reach PostgreSQL or Redis, with the first reason found. */
export async function databaseTests(files = testFiles()): Promise<Map<string, string>> {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: files,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    splitting: true, // one copy of each shared module, not one per test file
    packages: 'external',
    outdir: 'unused',
    logLevel: 'silent',
  });
  const reasons = new Map<string, string | null>();
  const reasonOf = (path: string) => {
    if (!reasons.has(path)) reasons.set(path, ownReason(path, metafile.inputs[path]));
    return reasons.get(path) ?? null;
  };
  const picked = new Map<string, string>();
  for (const file of files) {
    const seen = new Set<string>();
    const todo = [file];
    while (todo.length > 0) {
      const path = todo.shift() as string;
      if (seen.has(path) || !(path in metafile.inputs)) continue;
      seen.add(path);
      const reason = reasonOf(path);
      if (reason) {
        picked.set(file, reason);
        break;
      }
      for (const i of metafile.inputs[path].imports) if (!i.external) todo.push(i.path);
    }
  }
  return picked;
}

async function main(): Promise<void> {
  const picked = await databaseTests();
  if (process.argv.includes('--list')) {
    process.stdout.write(`${[...picked.keys()].join('\n')}\n`);
    return;
  }
  if (!process.argv.includes('--run')) {
    for (const [file, why] of picked) process.stdout.write(`${file}\t${why}\n`);
    process.stdout.write(`${picked.size} of ${testFiles().length} test files can reach PostgreSQL or Redis\n`);
    return;
  }
  if (!process.env.TEST_DATABASE_URL && !process.env.REDIS_URL) {
    process.stderr.write('test:databases is the PostgreSQL + Redis pass: set TEST_DATABASE_URL and REDIS_URL\n');
    process.exit(2);
  }
  process.stdout.write(
    `Running the ${picked.size} of ${testFiles().length} test files that can reach PostgreSQL or Redis\n`,
  );
  process.exit(runTestPass([...picked.keys()]));
}

if (process.argv[1] && relative(ROOT, process.argv[1]) === 'scripts/database-tests.ts') await main();

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { staleReason } from '../../scripts/build.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
/** The test passes' TypeScript loader, for a child that runs sources (by absolute URL: any cwd). */
const TS_LOADER = ['--import', pathToFileURL(join(ROOT, 'scripts', 'ts-loader.mjs')).href];
let current: boolean | undefined;

/** Whether dist/ is current: built (as CI builds it before the tests) and newer than every source. */
function built(): boolean {
  current ??= staleReason() === null;
  return current;
}

/**
 * Node's arguments to run an entry point in a child process as users run it: the compiled file
 * (`dist/`, `packages/sdk/dist/`) when the build is current, as CI builds it before the tests; it
 * starts in about half the CPU time the source takes through the loader. From source when the build is
 * missing or older than its sources, so a test never runs stale code and never builds.
 */
export function entryArgs(compiled: string, source: string): string[] {
  return built() ? ['--enable-source-maps', join(ROOT, compiled)] : [...TS_LOADER, join(ROOT, source)];
}

/**
 * For a child that runs a script of the test's own (`node -e`) against the service's modules: the
 * URL to import a module of src/ from (`platform/context.ts`), its compiled file by the rule of
 * `entryArgs`, and Node's arguments that let the child load it (the loader only for the sources).
 */
export function serviceModule(path: string): string {
  const file = built() ? join(ROOT, 'dist', path.replace(/\.ts$/, '.js')) : join(ROOT, 'src', path);
  return pathToFileURL(file).href;
}

/** Node's arguments for a child that imports `serviceModule` URLs and nothing else that is TypeScript. */
export function serviceModuleArgs(): string[] {
  return built() ? ['--enable-source-maps'] : TS_LOADER;
}

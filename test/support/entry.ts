import { join } from 'node:path';
// @ts-expect-error plain JavaScript build script without declarations
import { staleReason } from '../../scripts/build.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
let current: boolean | undefined;

/**
 * Node's arguments to run an entry point in a child process as users run it: the compiled file
 * (`dist/`, `packages/sdk/dist/`) when the build is current, as CI builds it before the tests; it
 * starts in about half the CPU time the source takes through tsx. From source when the build is
 * missing or older than its sources, so a test never runs stale code and never builds.
 */
export function entryArgs(compiled: string, source: string): string[] {
  current ??= staleReason() === null;
  return current ? ['--enable-source-maps', join(ROOT, compiled)] : ['--import', 'tsx', join(ROOT, source)];
}

#!/usr/bin/env node
/**
 * Runs a compiled entry point (`main`, `worker` or `cli`) from dist/, building first when dist/ is
 * missing or older than its sources, so `npm ci && npm start` works on a fresh clone. Without the
 * compiler (`npm ci --omit=dev`) a stale dist/ is run as it is, with a warning.
 */
import { existsSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CompilerMissing, ROOT, ensureBuilt, staleReason } from './build.mjs';

/** @type {Record<string, string>} */
const ENTRIES = { main: 'main.js', worker: 'worker.js', cli: 'cli.js' };

/**
 * @param {string} entry
 * @param {string[]} args
 */
export async function runCompiled(entry, args) {
  const file = join(ROOT, 'dist', ENTRIES[entry]);
  try {
    ensureBuilt();
  } catch (err) {
    if (!(err instanceof CompilerMissing) || !existsSync(file)) {
      process.stderr.write(`error: ${/** @type {Error} */ (err).message}\n`);
      process.exit(1);
    }
    process.stderr.write(
      `warning: running the existing dist/ (${staleReason()}): ${/** @type {Error} */ (err).message}\n`,
    );
  }
  // module.setSourceMapsSupport since Node 22.14 (process.setSourceMapsEnabled is deprecated there);
  // the Node 20 types the project builds against do not declare it.
  const sourceMaps = /** @type {{ setSourceMapsSupport?: (enabled: boolean) => void }} */ (module);
  if (typeof sourceMaps.setSourceMapsSupport === 'function') sourceMaps.setSourceMapsSupport(true);
  else process.setSourceMapsEnabled(true);
  // The entry reads its own arguments (the CLI parses process.argv).
  process.argv = [process.argv[0], file, ...args];
  await import(pathToFileURL(file).href);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [entry, ...args] = process.argv.slice(2);
  if (!ENTRIES[entry]) {
    process.stderr.write(`usage: node scripts/run.mjs ${Object.keys(ENTRIES).join('|')} [arguments]\n`);
    process.exit(2);
  }
  await runCompiled(entry, args);
}

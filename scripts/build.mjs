#!/usr/bin/env node
/**
 * `npm run build`: the server into dist/ (TypeScript's native compiler, then every non-TypeScript
 * file of src/ copied beside the JavaScript, so files found through import.meta.dirname are there)
 * and the SDK into packages/sdk/dist/ (ESM, CommonJS and declarations).
 *
 * Plain JavaScript on purpose: `npm start` runs it before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(ROOT, 'dist', '.build-stamp');
const SDK = join(ROOT, 'packages', 'sdk');

/** What a build reads: a change to any of them makes dist/ stale. */
const INPUTS = [
  'src',
  'packages/sdk/src',
  'packages/sdk/package.json',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'packages/sdk/tsconfig.build.json',
  'scripts/build.mjs',
];

/** @param {string} path */
function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs; // a deleted file changes its folder's mtime
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Why dist/ (or the build whose stamp is given) cannot be used as it is, or null when it is current. */
export function staleReason(stamp = STAMP) {
  if (!existsSync(stamp)) return 'dist/ has not been built';
  const built = statSync(stamp).mtimeMs;
  for (const input of INPUTS)
    if (newestMtime(join(ROOT, input)) > built) return `${input} changed since the last build`;
  return null;
}

/** The build cannot run at all here (`npm ci --omit=dev`), as opposed to a build that failed. */
export class CompilerMissing extends Error {}

/**
 * @param {string} project
 * @param {...string} args
 */
function tsc(project, ...args) {
  let bin;
  try {
    bin = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  } catch {
    throw new CompilerMissing('TypeScript is not installed: run `npm ci` (with dev dependencies) to build');
  }
  const run = spawnSync(process.execPath, [bin, '-p', project, ...args], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`tsc -p ${project} failed`);
}

/**
 * Copies every file of `from` that is not TypeScript (JSON data, SQL, pictures, fonts) into `to`.
 * @param {string} from
 * @param {string} to
 */
function copyAssets(from, to) {
  cpSync(from, to, {
    recursive: true,
    filter: (src) => statSync(src).isDirectory() || !/\.(ts|tsx|mts|cts)$/.test(src),
  });
}

/** The SDK alone (what `npm pack` in packages/sdk needs). */
export function buildSdk() {
  rmSync(join(SDK, 'dist'), { recursive: true, force: true });
  tsc('packages/sdk/tsconfig.build.json');
  tsc('packages/sdk/tsconfig.cjs.json');
  // The folder's own package.json tells Node which module system its .js files use.
  writeFileSync(join(SDK, 'dist', 'esm', 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(SDK, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
  chmodSync(join(SDK, 'dist', 'esm', 'cli', 'main.js'), 0o755);
}

/**
 * The server into `outDir` (a folder of the repository root, so that `migrations/` and
 * node_modules are found from it as from src/) and, unless `sdk: false`, the SDK.
 */
export function build({ quiet = false, outDir = 'dist', sdk = true } = {}) {
  const log = (/** @type {string} */ line) => quiet || process.stderr.write(`${line}\n`);
  const started = Date.now();
  const out = join(ROOT, outDir);
  rmSync(out, { recursive: true, force: true });
  tsc('tsconfig.build.json', '--outDir', out);
  copyAssets(join(ROOT, 'src'), out);
  log(`built ${outDir}/ from src/`);
  if (sdk) {
    buildSdk();
    log('built packages/sdk/dist/ (esm, cjs, .d.ts)');
  }
  writeFileSync(join(out, '.build-stamp'), `${new Date().toISOString()}\n`);
  log(`build done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Builds when dist/ is missing or older than its sources; says why on stderr. */
export function ensureBuilt() {
  const reason = staleReason();
  if (!reason) return;
  process.stderr.write(`Building first: ${reason}.\n`);
  build();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    if (process.argv.includes('--sdk')) buildSdk();
    else build();
  } catch (err) {
    process.stderr.write(`build failed: ${/** @type {Error} */ (err).message}\n`);
    process.exit(1);
  }
}

/**
 * Module hooks that run the project's TypeScript as it is, for the test passes (registered by
 * scripts/ts-loader.mjs). Only `load` is hooked: every import names its file with its `.ts`
 * extension, so Node's own resolver finds it. Each file is transformed by esbuild with the
 * project's compiler options (the per-file transform tsx applies) once per content; the result is
 * kept on disk, keyed by esbuild's version, those options, the file's path and its bytes, so the many
 * processes of a test run share it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'pod-ts');
const TS = /\.m?ts$/;
const ESBUILD_VERSION = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;
/** tsconfig.json's options: esbuild reads the ones that change its output (class fields by `target`). */
const TSCONFIG = readFileSync(join(ROOT, 'tsconfig.json'), 'utf8');

/** @type {typeof import('esbuild') | undefined} Started on the first miss only: a warm cache never starts its service. */
let esbuild;

/**
 * @param {string} url
 * @param {{ format?: string }} context
 * @param {(url: string, context: { format?: string }) => Promise<{ format?: string, source?: unknown }>} nextLoad
 */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TS.test(url)) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const code = readFileSync(file);
  const key = createHash('sha1').update(`${ESBUILD_VERSION}\0${TSCONFIG}\0${file}\0`).update(code).digest('hex');
  const cached = join(CACHE, `${key}.js`);
  let source;
  try {
    source = readFileSync(cached, 'utf8');
  } catch {
    esbuild ??= await import('esbuild');
    source = esbuild.transformSync(code.toString('utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: file,
      tsconfigRaw: TSCONFIG,
    }).code;
    mkdirSync(CACHE, { recursive: true });
    // Written whole under a name of its own, then renamed: a process reading the cache never sees half a file.
    const tmp = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, source);
    renameSync(tmp, cached);
  }
  return { format: 'module', source, shortCircuit: true };
}

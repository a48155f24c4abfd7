import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread from a module file of the service, given as the URL of its TypeScript source
 * (`new URL('./x-worker.ts', import.meta.url)`). Compiled (dist/), the thread runs the `.js` file
 * beside it. From source a worker thread does not inherit the process's module hooks, so a
 * bootstrap registers them before the module is imported: the test passes' own hooks
 * (scripts/ts-loader.mjs announces them) or tsx's (the benchmark, `npm run dev`).
 */
export function startModuleThread(source: URL, options: WorkerOptions = {}): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(source.href.replace(/\.ts$/, '.js')), options);
  const entry = JSON.stringify(source.href);
  const testHooks = (globalThis as Record<symbol, unknown>)[Symbol.for('pod.tsHooks')];
  const register =
    typeof testHooks === 'string'
      ? `import('node:module').then((m) => m.register(${JSON.stringify(testHooks)}))`
      : `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => m.register())`;
  return new Worker(`${register}.then(() => import(${entry}));`, { ...options, eval: true });
}

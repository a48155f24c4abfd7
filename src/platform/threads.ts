import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread from a module file of the service, given as the URL of its TypeScript source
 * (`new URL('./x-worker.ts', import.meta.url)`). Compiled (dist/), the thread runs the `.js` file
 * beside it. Through tsx (tests, the benchmark, `npm run dev`) a worker thread does not inherit
 * tsx's loader, so a two-line bootstrap registers it before the module is imported.
 */
export function startModuleThread(source: URL, options: WorkerOptions = {}): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(source.href.replace(/\.ts$/, '.js')), options);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(source.href);
  return new Worker(`import(${tsx}).then((m) => { m.register(); return import(${entry}); });`, {
    ...options,
    eval: true,
  });
}

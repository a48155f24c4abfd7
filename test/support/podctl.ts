import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATOR_TOKEN, createTestApp } from './app.ts';
import { entryArgs } from './entry.ts';

/** podctl as operators run it (bin/podctl.js runs dist/cli.js), from source when dist/ is stale. */
export const PODCTL_ENTRY = entryArgs('dist/cli.js', 'src/cli.ts');

/** podctl as an operator runs it, in its own process (not waited for synchronously: the server is here). */
export async function podctl(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [...PODCTL_ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const [code] = (await once(child, 'close')) as [number];
  return { code, stdout, stderr };
}

/**
 * A test app listening on a port, for podctl to reach with `--url`, and a data directory of its own
 * for podctl's `DATA_DIR`; `close` stops the app and removes the directory.
 */
export async function podctlServer(prefix: string, opts: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(opts);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env: Record<string, string> = { DATA_DIR: dir, OPERATOR_TOKEN };
  const close = async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { t, url, dir, env, close };
}

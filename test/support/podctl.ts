import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

/** podctl as an operator runs it, in its own process (not waited for synchronously: the server is here). */
export async function podctl(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const [code] = (await once(child, 'close')) as [number];
  return { code, stdout, stderr };
}

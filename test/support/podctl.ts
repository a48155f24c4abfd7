import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { runPodctl } from '../../src/cli/program.ts';
import { OPERATOR_TOKEN, type TestApp, type TestAppOptions, servedApp } from './app.ts';
import { entryArgs } from './entry.ts';

/** podctl as operators run it (bin/podctl.js runs dist/cli.js), from source when dist/ is stale. */
export const PODCTL_ENTRY = entryArgs('dist/cli.js', 'src/cli.ts');

export interface PodctlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment an operator's shell gives podctl: PATH, HOME and the test's variables. */
const shellEnv = (env: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  ...env,
});

/**
 * A podctl command line run in this process (the binary's code path bar its entry file), with
 * `env` as its whole environment and its output collected; a process costs seconds of CPU to start.
 */
export async function podctl(args: string[], env: Record<string, string>): Promise<PodctlResult> {
  let stdout = '';
  let stderr = '';
  const code = await runPodctl(args, {
    env: shellEnv(env),
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

/** podctl as an operator runs it, in its own process (not waited for synchronously: the server is here). */
export async function podctlProcess(args: string[], env: Record<string, string>): Promise<PodctlResult> {
  const child = spawn(process.execPath, [...PODCTL_ENTRY, ...args], {
    env: shellEnv(env),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const [code] = (await once(child, 'close')) as [number];
  return { code, stdout, stderr };
}

export interface PodctlServer {
  t: TestApp;
  url: string;
  /** podctl's `DATA_DIR`, a folder of the test's own. */
  dir: string;
  env: Record<string, string>;
  /** podctl with `--url` of this server and its environment. */
  run(...args: string[]): Promise<PodctlResult>;
  /** Stops the app and removes the directory. */
  close(): Promise<void>;
}

/** A test app listening on a port, for podctl to reach with `--url`, and a data directory of its own. */
export async function podctlServer(prefix: string, opts: TestAppOptions = {}): Promise<PodctlServer> {
  const { t, base: url } = await servedApp(opts);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env: Record<string, string> = { DATA_DIR: dir, OPERATOR_TOKEN };
  return {
    t,
    url,
    dir,
    env,
    run: (...args) => podctl(['--url', url, ...args], env),
    async close() {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The enclosing suite's podctl server: started before its first test and closed after its last
 * (hooks on the suite that calls this); the tests read its fields.
 */
export function podctlSuite(prefix: string, opts: TestAppOptions = {}): PodctlServer {
  const server = {} as PodctlServer;
  before(async () => {
    Object.assign(server, await podctlServer(prefix, opts));
  });
  after(() => server.close?.());
  return server;
}

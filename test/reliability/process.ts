import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket, connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { ensureBuilt } from '../../scripts/build.mjs';
import { recordFigures, runState } from './support.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** A server or worker process of the real entry points, with its output kept for diagnosis. */
export interface Child {
  proc: ChildProcess;
  base: string;
  output: string[];
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startProcess(
  entry: 'src/main.ts' | 'src/worker.ts',
  env: Record<string, string>,
  opts: { readyTimeoutMs?: number; ready?: RegExp } = {},
): Promise<Child> {
  runState.childServers = true;
  // The compiled build, as a deployment runs it (`npm start`): through tsx the same server keeps
  // ~80 MB more resident (the loader and its source maps), which would blur the memory figure.
  ensureBuilt();
  const compiled = join('dist', entry.replace(/^src\//, '').replace(/\.ts$/, '.js'));
  const proc = spawn(process.execPath, ['--enable-source-maps', compiled], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      APP_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      // The deployment settings docs/operations.md asks for: glibc's default of 8 malloc arenas per
      // core lets libvips' threads keep ~130 MB more resident than two arenas do.
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '1048576',
      // On the embedded database only, as docs/operations.md advises (on PostgreSQL V8's default).
      ...(env.DATABASE_URL ? {} : { NODE_OPTIONS: '--max-semi-space-size=8' }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const ready = opts.ready ?? /Base URL:\s+(\S+)\/v2/;
  // A first start migrates and seeds an empty database: seconds on a quiet machine, minutes on a
  // shared one. The wait ends as soon as the banner is printed; the bound only catches a hang.
  const readyTimeoutMs = opts.readyTimeoutMs ?? 600_000;
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${entry} not ready after ${readyTimeoutMs} ms:\n${output.join('').slice(-3000)}`)),
      readyTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output.push(String(chunk));
      const m = ready.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? '');
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before it was ready:\n${output.join('').slice(-3000)}`));
    });
  });
  return {
    proc,
    base,
    output,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      // Its whole run's peak, for the summary's figure over every server process of the suite.
      recordFigures(entry === 'src/main.ts' ? 'server process' : 'worker process', {
        memoryPeakMb: peakRssMb(proc.pid!),
      });
      proc.kill(signal);
      const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The highest resident memory the process has had so far (Linux' VmHWM), in MB; 0 elsewhere or
 * once it has exited. Read before a process is stopped, it is the peak of its whole run.
 */
export function peakRssMb(child: Pick<Child, 'proc'> | number): number {
  const pid = typeof child === 'number' ? child : child.proc.pid;
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
}

export interface HttpResult {
  status: number;
  body: any;
  text: string;
}

/** fetch with JSON in and out; network failures come back as status 0. */
export async function http(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: Buffer; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-service-secret-key'] = opts.key;
  let body: string | Blob | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  } else if (opts.raw) {
    body = new Blob([new Uint8Array(opts.raw)]);
    headers['content-type'] ??= 'application/octet-stream';
  }
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
    });
    const text = await res.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed, text };
  } catch (err) {
    return { status: 0, body: null, text: String((err as Error).message) };
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value or the time is up. */
export async function until<T>(what: string, fn: () => Promise<T>, timeoutMs: number, everyMs = 500): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A local receiver for webhooks and callbacks that can answer slowly or fail on purpose. */
export async function receiver(opts: { delayMs?: number } = {}) {
  const hits: Array<{ url: string; headers: Record<string, string | string[] | undefined>; body: string }> = [];
  let delayMs = opts.delayMs ?? 0;
  let down = false;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (down) {
        res.writeHead(503);
        res.end();
        return;
      }
      setTimeout(() => {
        hits.push({ url: req.url ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    hits,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setDelay: (ms: number) => (delayMs = ms),
    setDown: (d: boolean) => (down = d),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A TCP proxy to PostgreSQL that the test can cut: while cut, every connection is dropped at once
 * (what a failed database or a partition looks like to the service).
 */
export async function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let cut = false;
  const server = createTcpServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A fresh, empty PostgreSQL database next to TEST_DATABASE_URL's; dropped by the returned function. */
export async function freshDatabase(url: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}

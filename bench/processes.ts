import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface Proc {
  child: ChildProcess;
  port: number;
  /** From spawn to the ready marker. */
  startupMs: number;
  stop(): Promise<void>;
}

/** Starts an entry point (TypeScript through tsx, or compiled `.js`) and waits until it prints `marker`. */
export async function startProcess(entry: string, env: Record<string, string>, marker: RegExp): Promise<Proc> {
  const port = await freePort();
  // BENCH_CPU_PROF=1: each process writes a V8 CPU profile when it stops (open it in Chrome DevTools).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'bench', 'results', 'profiles')}`]
    : [];
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  // BENCH_SERVER_NODE_ARGS: node flags for the server only, those NODE_OPTIONS refuses (`--trace-gc`).
  const serverArgs = /main\.[jt]s$/.test(entry)
    ? (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)
    : [];
  const spawned = performance.now();
  const child = spawn(process.execPath, [...profile, ...serverArgs, ...loader, join(ROOT, entry)], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // BENCH_PROCESS_LOG=<dir> (made when missing): each process's stdout and stderr also go to a file
  // there (e.g. the server's `--trace-gc` lines, through BENCH_SERVER_NODE_ARGS).
  if (process.env.BENCH_PROCESS_LOG) {
    mkdirSync(process.env.BENCH_PROCESS_LOG, { recursive: true });
    const file = createWriteStream(join(process.env.BENCH_PROCESS_LOG, `${entry.replace(/\W+/g, '-')}-${port}.log`));
    child.stdout!.pipe(file, { end: false });
    child.stderr!.pipe(file, { end: false });
  }
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start in 120 s:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (marker.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return {
    child,
    port,
    startupMs: Math.round(performance.now() - spawned),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}

/** Resident set size of a process in MB (Linux). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/**
 * CPU time a process has used so far, every thread, user and system, in ms (Linux: /proc/<pid>/stat,
 * in clock ticks of 10 ms). Time on the CPU only: a thread waiting for a core does not count.
 */
export function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

function statCpuMs(path: string): number {
  const stat = readFileSync(path, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms of each of a process's threads by thread id (a thread that ended is missing). */
export function threadCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), statCpuMs(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // Ended between the listing and the read.
    }
  }
  return out;
}

/** Where the server's `/metrics` answers, with the operator token it asks for. */
export interface MetricsSource {
  url: string;
  token: string;
}

/** `nodejs_array_buffers_bytes` from the server's `/metrics`, in MB; null when the scrape fails. */
async function arrayBuffersMb(m: MetricsSource): Promise<number | null> {
  try {
    const res = await fetch(`${m.url}/metrics`, { headers: { authorization: `Bearer ${m.token}` } });
    const found = /^nodejs_array_buffers_bytes (\d+)/m.exec(await res.text());
    return found ? Math.round(Number(found[1]) / 1048576) : null;
  } catch {
    return null;
  }
}

export interface Peaks<T> {
  result: T;
  peakMb: number;
  /** The peak of the server's array buffers (Buffers, ArrayBuffers, SharedArrayBuffers), when scraped. */
  buffersPeakMb?: number;
  /** The array buffers last scraped when the RSS peaked: a high peak with few buffers is native or heap memory. */
  buffersAtRssPeakMb?: number;
}

/**
 * Samples a process's RSS every 100 ms while `work` runs and returns the peak; with `metrics`, also
 * the peak of its array buffers, scraped every 250 ms (a scrape is a request and a jobs count).
 */
export async function peakRss<T>(pid: number, work: () => Promise<T>, metrics?: MetricsSource): Promise<Peaks<T>> {
  let peak = rssMb(pid);
  let buffers: number | undefined;
  let buffersPeak: number | undefined;
  let buffersAtRssPeak: number | undefined;
  const sampleRss = () => {
    const now = rssMb(pid);
    if (now < peak) return;
    peak = now;
    buffersAtRssPeak = buffers;
  };
  let scraping = false;
  const scrape = async () => {
    if (!metrics || scraping) return;
    scraping = true;
    const mb = await arrayBuffersMb(metrics);
    scraping = false;
    if (mb === null) return;
    buffers = mb;
    buffersPeak = Math.max(buffersPeak ?? 0, mb);
  };
  const timer = setInterval(sampleRss, 100);
  const scraper = metrics ? setInterval(() => void scrape(), 250) : undefined;
  try {
    await scrape();
    const result = await work();
    sampleRss();
    return { result, peakMb: peak, buffersPeakMb: buffersPeak, buffersAtRssPeakMb: buffersAtRssPeak };
  } finally {
    clearInterval(timer);
    clearInterval(scraper);
  }
}

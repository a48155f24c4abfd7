/**
 * Where the request log's CPU goes, function by function: a diagnostic beside `npm run bench`, not
 * part of it. One server answers a fixed number of GETs by reference with the log recording, then
 * as many with it paused (the order alternating by repetition), and Linux `perf` samples the server's
 * on-CPU time (cpu-clock: needs no hardware counters; `--perf-basic-prof` names V8's compiled
 * functions). It prints µs per request by symbol of the event loop's thread, with the log against
 * without, averaged over the repetitions, and the busiest other threads' totals.
 *
 * A symbol's share is steady from run to run (the log's own functions to ±0.1 µs), while the total
 * moves with the machine (docs/performance.md, "How the hard ones are measured").
 *
 *   npm run build && node --import tsx bench/request-log-perf.ts
 *   PERF_REQUESTS=60000 PERF_ROUNDS=2 BENCH_DATABASE_URL=postgres://… (optional) PERF_TOP=40
 *   PERF_STAT=1: per request CPU, page faults, context switches and migrations instead of symbols
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from './processes.ts';
import { prepare } from './setup.ts';

const REQUESTS = Number(process.env.PERF_REQUESTS ?? 60_000);
const ROUNDS = Number(process.env.PERF_ROUNDS ?? 2);
const TOP = Number(process.env.PERF_TOP ?? 30);
/** PERF_STAT=1: counts instead of samples (CPU, page faults, context switches, migrations per request). */
const STAT = !!process.env.PERF_STAT;
const EVENTS = 'task-clock,page-faults,context-switches,cpu-migrations';
const HZ = 1999;
const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'bench', 'results', 'perf');

try {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
} catch {
  process.stderr.write('request-log-perf needs Linux perf on PATH (Debian: linux-perf)\n');
  process.exit(1);
}

const f = await prepare({ bigOrders: 200, smallOrders: 1000, tenants: 1 });
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

function load(base: string, path: string, key: string, amount: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: base,
        connections: 10,
        amount,
        requests: [{ method: 'GET', path, headers: { 'x-service-secret-key': key } }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    ),
  );
}

const exited = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));

const TOKEN = 'perf-operator-token';

/**
 * One server for both sides, the log recording or paused (PUT /operator/request-log) between
 * samples: the same process, so the same compiled code, heap and caches on both sides.
 */
async function startServer(dataDir: string) {
  const port = await freePort();
  const env = {
    ...process.env,
    ...(f.databaseUrl ? { DATABASE_URL: f.databaseUrl } : {}),
    DATA_DIR: dataDir,
    SECRET_KEY: f.secretKey,
    LOG_LEVEL: 'warn',
    MALLOC_ARENA_MAX: '2',
    PORT: String(port),
    OPERATOR_TOKEN: TOKEN,
    REQUEST_LOG: 'false',
  };
  const child = spawn(process.execPath, ['--perf-basic-prof', join(ROOT, 'dist/main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/Base URL: +http/.test(seen)) resolve();
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const list = await fetch(`${base}/v2/orders?limit=1`, { headers: { 'x-service-secret-key': f.small.key } });
  const path = `/v2/orders/${((await list.json()) as { orders: Array<{ reference: string }> }).orders[0].reference}`;
  const setRecording = async (recording: boolean) => {
    const res = await fetch(`${base}/operator/request-log`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ recording }),
    });
    if (res.status !== 200) throw new Error(`PUT /operator/request-log: ${res.status}`);
  };
  // Both paths of the hook warmed.
  await setRecording(true);
  await load(base, path, f.small.key, 10_000);
  await setRecording(false);
  await load(base, path, f.small.key, 10_000);
  /** REQUESTS GETs sampled with the log on or off; the log paused (and written) before the sample ends. */
  const sample = async (label: string, logOn: boolean): Promise<string> => {
    await setRecording(logOn);
    const file = join(OUT, `${label}.${STAT ? 'stat' : 'data'}`);
    const args = STAT
      ? ['stat', '-e', EVENTS, '-x', ',', '-p', String(child.pid), '-o', file]
      : ['record', '-e', 'cpu-clock', '-F', String(HZ), '-p', String(child.pid), '-o', file];
    const perf = spawn('perf', args, { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await load(base, path, f.small.key, REQUESTS);
    await setRecording(false);
    perf.kill('SIGINT');
    await exited(perf);
    return file;
  };
  const stop = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  return { sample, stop };
}

/** µs per request by symbol, on the thread with the most samples (the event loop). */
function bySymbol(file: string): [Map<string, number>, string] {
  const report = (args: string[]) =>
    execFileSync('perf', ['report', '-i', file, '-n', '--stdio', ...args], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
  const threads = report(['--sort', 'pid']).map((line) => {
    const cols = line.trim().split(/\s+/);
    return { tid: cols[2].split(':')[0], us: (Number(cols[1]) * 1e6) / HZ / REQUESTS };
  });
  const loop = threads[0].tid;
  const others = threads
    .slice(1, 4)
    .map((t) => t.us.toFixed(1))
    .join(' + ');
  const out = new Map<string, number>();
  for (const line of report(['--tid', loop, '--sort', 'dso,sym'])) {
    const [, samples, ...rest] = line.trim().split(/\s+/);
    const symbol = rest.join(' ').replace(/tid \d+ /, '');
    out.set(symbol, (out.get(symbol) ?? 0) + (Number(samples) * 1e6) / HZ / REQUESTS);
  }
  return [out, others];
}

/** perf stat's counts per request, by event (task-clock in µs). */
function counts(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [value, , event] = line.split(',');
    if (event && EVENTS.includes(event))
      out.set(event, (Number(value) * (event === 'task-clock' ? 1000 : 1)) / REQUESTS);
  }
  return out;
}

const diffs: Array<Map<string, number>> = [];
const totals: string[] = [];
const server = await startServer(f.dataDir);
if (STAT) {
  for (let round = 0; round < ROUNDS; round++) {
    const onFirst = round % 2 === 0;
    const got: Record<string, Map<string, number>> = {};
    for (const logOn of onFirst ? [true, false] : [false, true])
      got[String(logOn)] = counts(await server.sample(`${logOn ? 'on' : 'off'}${round}`, logOn));
    const line = [...got.true.keys()]
      .map((k) => `${k} ${got.true.get(k)!.toFixed(3)} / ${got.false.get(k)?.toFixed(3)}`)
      .join('; ');
    process.stdout.write(`repetition ${round + 1}, per request with / without the log: ${line}\n`);
  }
  await server.stop();
  rmSync(f.dataDir, { recursive: true, force: true });
  process.exit(0);
}
for (let round = 0; round < ROUNDS; round++) {
  // Which side goes first alternates, so neither always follows the other.
  const onFirst = round % 2 === 0;
  const files: Record<string, string> = {};
  for (const logOn of onFirst ? [true, false] : [false, true])
    files[String(logOn)] = await server.sample(`${logOn ? 'on' : 'off'}${round}`, logOn);
  const [on, onThreads] = bySymbol(files.true);
  const [off, offThreads] = bySymbol(files.false);
  const d = new Map<string, number>();
  for (const key of new Set([...on.keys(), ...off.keys()])) d.set(key, (on.get(key) ?? 0) - (off.get(key) ?? 0));
  diffs.push(d);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  totals.push(
    `repetition ${round + 1}: event loop ${sum(on).toFixed(1)} µs per request with the log, ${sum(off).toFixed(1)} without; other threads ${onThreads} with, ${offThreads} without`,
  );
}
await server.stop();
rmSync(f.dataDir, { recursive: true, force: true });

process.stdout.write(
  `${totals.join('\n')}\n\nµs per request, with the log minus without (mean, then each repetition):\n`,
);
const keys = new Set(diffs.flatMap((d) => [...d.keys()]));
const rows = [...keys].map((key) => {
  const each = diffs.map((d) => d.get(key) ?? 0);
  return { key, mean: each.reduce((a, b) => a + b, 0) / each.length, each };
});
rows.sort((a, b) => Math.abs(b.mean) - Math.abs(a.mean));
for (const r of rows.slice(0, TOP))
  process.stdout.write(
    `${r.mean.toFixed(2).padStart(7)} ${r.each.map((x) => x.toFixed(2).padStart(6)).join(' ')}  ${r.key.slice(0, 110)}\n`,
  );

/**
 * What every benchmark scenario shares: the run's settings, the load generator (autocannon), the
 * table's rows and a context with the service under test, its baseline server and the demo data.
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { cpuMs, type MetricsSource, peakRss, type Proc } from './processes.ts';
import type { BenchFixture } from './setup.ts';

/** The start banner's line that says the server listens. */
export const READY = /Base URL: +http/;
/** `--smoke` runs every scenario for a moment on small data (CI keeps the bench working with it). */
export const SMOKE = process.argv.includes('--smoke');
export const SECONDS = SMOKE ? 1 : Number(process.env.BENCH_SECONDS ?? 10);
const ON_POSTGRES = !!process.env.BENCH_DATABASE_URL;
// PGlite's targets are set at 100,000 orders and 40 organizations; PostgreSQL's at 1,000,000 and 100.
export const BIG = SMOKE ? 2_000 : Number(process.env.BENCH_BIG_ORDERS ?? (ON_POSTGRES ? 1_000_000 : 100_000));
export const TENANTS = SMOKE ? 4 : Number(process.env.BENCH_TENANTS ?? (ON_POSTGRES ? 100 : 40));
/** The 1-minute load average: beside every row, so that a run on a busy machine shows as one. */
export const load1 = () => Math.round(loadavg()[0] * 10) / 10;
/** `BENCH_ONLY=<regex>`: only the scenario groups whose names match (the baselines always run). */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
export const want = (...names: string[]) => !ONLY || names.some((n) => ONLY.test(n));

export interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  rssMb: number;
  /** The peak of the server's array buffers (`nodejs_array_buffers_bytes`), and their size when its RSS peaked. */
  buffersMb?: number;
  buffersAtRssPeakMb?: number;
  /** The machine's 1-minute load average when the row was measured. */
  load: number;
  ratio?: string;
  note?: string;
}

export type Req = {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (r: any) => any;
};

export interface LoadOpts {
  connections?: number;
  seconds?: number;
  rate?: number;
  /** Requests per second of each connection (the many-organizations scenario). */
  connectionRate?: number;
  amount?: number;
  /** Ends the run early when this settles (load only while something else runs). */
  until?: Promise<unknown>;
  setupClient?: (client: any) => void;
}

export function load(base: string, req: Req, opts: LoadOpts = {}): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections: opts.connections ?? 10,
        duration: opts.seconds ?? SECONDS,
        ...(opts.amount ? { amount: opts.amount } : {}),
        ...(opts.rate ? { overallRate: opts.rate } : {}),
        ...(opts.connectionRate ? { connectionRate: opts.connectionRate } : {}),
        ...(opts.setupClient ? { setupClient: opts.setupClient } : {}),
        requests: [
          {
            method: (req.method ?? 'GET') as 'GET',
            path: req.path,
            ...(req.headers ? { headers: req.headers } : {}),
            ...(req.body !== undefined ? { body: req.body as string } : {}),
            ...(req.setupRequest ? { setupRequest: req.setupRequest } : {}),
          },
        ],
      },
      (err: Error | null, result: autocannon.Result) => (err ? reject(err) : resolve(result)),
    );
    const stop = () => instance.stop();
    opts.until?.then(stop, stop);
  });
}

export function row(scenario: string, r: autocannon.Result, rssMb: number, note?: string): Row {
  return {
    scenario,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    rssMb,
    load: load1(),
    note,
  };
}

/** A row measured in-process or by a helper script rather than by autocannon. */
export function timedRow(scenario: string, ms: number, fields: Partial<Row> = {}): Row {
  return { scenario, rps: 0, p50: ms, p99: ms, errors: 0, non2xx: 0, rssMb: 0, load: load1(), ...fields };
}

/** The service under test, its baseline server, and the calls every scenario makes against them. */
export interface Bench {
  f: BenchFixture;
  /** The service's environment, as `npm start` would be given it. */
  env: Record<string, string>;
  server: Proc;
  base: string;
  /** The server's `/metrics`, for the array buffers beside its RSS. */
  metrics: MetricsSource;
  baseBaseline: string;
  pid: number;
  rows: Row[];
  H: (key: string, extra?: Record<string, string>) => Record<string, string>;
  api: (
    method: string,
    path: string,
    key: string,
    body?: unknown,
    ct?: string,
  ) => Promise<{ status: number; data: any }>;
  measure: (name: string, req: Req, opts?: LoadOpts, note?: string, url?: string) => Promise<Row>;
  /** A short warm-up (JIT, pool connections, the database settling after the bulk load). */
  warm: (url: string, req: Req) => Promise<void>;
}

export function makeBench(f: BenchFixture, env: Record<string, string>, server: Proc, baseline: Proc): Bench {
  const base = `http://127.0.0.1:${server.port}`;
  const metrics = { url: base, token: env.OPERATOR_TOKEN };
  const pid = server.child.pid!;
  const rows: Row[] = [];
  const H = (key: string, extra: Record<string, string> = {}) => ({ 'x-service-secret-key': key, ...extra });
  const api = async (method: string, path: string, key: string, body?: unknown, ct = 'application/json') => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: H(key, body === undefined ? {} : { 'content-type': ct }),
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
    });
    return { status: res.status, data: await res.json().catch(() => null) };
  };
  const measure = async (name: string, req: Req, opts?: LoadOpts, note?: string, url = base) => {
    const cpuBefore = cpuMs(pid);
    const ofServer = url === base;
    const peaks = await peakRss(pid, () => load(url, req, opts), ofServer ? metrics : undefined);
    const r = row(name, peaks.result, ofServer ? peaks.peakMb : 0, note);
    r.buffersMb = peaks.buffersPeakMb;
    r.buffersAtRssPeakMb = peaks.buffersAtRssPeakMb;
    rows.push(r);
    // The server's CPU per answered request, every thread: on a shared machine it moves less than req/s.
    const cpu = ofServer
      ? `, server CPU ${Math.round(((cpuMs(pid) - cpuBefore) * 1000) / Math.max(1, peaks.result.requests.total))} µs a request`
      : '';
    process.stdout.write(`  ${name}: ${r.rps} req/s, p99 ${r.p99} ms${cpu}\n`);
    return r;
  };
  const warm = (url: string, req: Req) => (SMOKE ? Promise.resolve() : load(url, req, { seconds: 2 }).then(() => {}));
  return {
    f,
    env,
    server,
    base,
    metrics,
    baseBaseline: `http://127.0.0.1:${baseline.port}`,
    pid,
    rows,
    H,
    api,
    measure,
    warm,
  };
}

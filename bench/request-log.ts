import { cpSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import type autocannon from 'autocannon';
import { cpuMs, peakRss, type Proc, startProcess } from './processes.ts';

type Load = (url: string, seconds: number) => Promise<autocannon.Result>;
type Slice = { r: autocannon.Result; peakMb: number; cpuMs: number };

export interface SideResult {
  /** Mean requests per second over every measured slice. */
  rps: number;
  /** The server's CPU time per answered request, every thread, in µs: the cost free of scheduling noise. */
  cpuUs: number;
  /** The worst slice's p50 and p99. */
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  peakMb: number;
}

export interface RequestLogCost {
  /** Per endpoint, in the order given: the side with the log, the side without. */
  results: Array<{ on: SideResult; off: SideResult }>;
  slices: number;
  sliceSeconds: number;
}

/**
 * What the request log costs: the same endpoints on two servers that run side by side, one with the
 * log and one without (REQUEST_LOG=false), taking turns in short slices (on, off, off, on, ...).
 * Run one after the other, the sides differed by up to 30 % between two runs of the same side on a
 * shared 2-core machine: other tenants of the host and the database growing under POST drift over a
 * minute. Alternating slices spread that drift over both sides alike.
 *
 * On PGlite the server without the log gets its own copy of the data directory (PGlite admits one
 * process per directory); on PostgreSQL both use the same database.
 */
export async function requestLogCost(o: {
  entry: string;
  env: Record<string, string>;
  dataDir: string;
  onPostgres: boolean;
  ready: RegExp;
  /** One load per endpoint, each for the given seconds against the given server. */
  endpoints: Load[];
  /** Measured seconds per side and endpoint, split into `slices` turns. */
  seconds: number;
  slices: number;
  warm: boolean;
}): Promise<RequestLogCost> {
  const offDir = o.onPostgres ? o.dataDir : `${o.dataDir}-without-request-log`;
  // The database and the blobs; not the other scenarios' upload files or the baseline's copy.
  const copied = (src: string) => !/^(huge-.*|baseline|tmp)$/.test(basename(src));
  if (!o.onPostgres) cpSync(o.dataDir, offDir, { recursive: true, filter: copied });
  const started: Proc[] = [];
  try {
    const on = await startProcess(o.entry, { ...o.env, REQUEST_LOG: 'true' }, o.ready);
    started.push(on);
    const off = await startProcess(o.entry, { ...o.env, DATA_DIR: offDir, REQUEST_LOG: 'false' }, o.ready);
    started.push(off);
    const url = (p: Proc) => `http://127.0.0.1:${p.port}`;
    const sliceSeconds = Math.max(1, Math.round((o.seconds / o.slices) * 10) / 10);
    const results: RequestLogCost['results'] = [];
    for (const endpoint of o.endpoints) {
      // Unmeasured: JIT, caches and the first statements of each server.
      if (o.warm) for (const p of [on, off]) await endpoint(url(p), 2);
      const got: Record<'on' | 'off', Slice[]> = { on: [], off: [] };
      for (let i = 0; i < o.slices; i++) {
        // on, off, off, on, on, off...: neither side always goes first after the other.
        const order = i % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
        for (const side of order) {
          const p = side === 'on' ? on : off;
          const cpuBefore = cpuMs(p.child.pid!);
          const { result, peakMb } = await peakRss(p.child.pid!, () => endpoint(url(p), sliceSeconds));
          got[side].push({ r: result, peakMb, cpuMs: cpuMs(p.child.pid!) - cpuBefore });
        }
      }
      const summary = (xs: Slice[]): SideResult => ({
        rps: Math.round(xs.reduce((n, x) => n + x.r.requests.average, 0) / xs.length),
        cpuUs: Math.round(
          (xs.reduce((n, x) => n + x.cpuMs, 0) * 1000) /
            Math.max(
              1,
              xs.reduce((n, x) => n + x.r.requests.total, 0),
            ),
        ),
        p50: Math.max(...xs.map((x) => x.r.latency.p50)),
        p99: Math.max(...xs.map((x) => x.r.latency.p99)),
        errors: xs.reduce((n, x) => n + x.r.errors + x.r.timeouts, 0),
        non2xx: xs.reduce((n, x) => n + x.r.non2xx, 0),
        peakMb: Math.max(...xs.map((x) => x.peakMb)),
      });
      results.push({ on: summary(got.on), off: summary(got.off) });
      const each = (xs: Slice[]) => xs.map((x) => Math.round(x.r.requests.average)).join(' ');
      const cpu = (xs: Slice[]) =>
        xs.map((x) => Math.round((x.cpuMs * 1000) / Math.max(1, x.r.requests.total))).join(' ');
      process.stdout.write(`  request log slices, req/s: on ${each(got.on)}; off ${each(got.off)}\n`);
      process.stdout.write(`  request log slices, CPU µs per request: on ${cpu(got.on)}; off ${cpu(got.off)}\n`);
    }
    return { results, slices: o.slices, sliceSeconds };
  } finally {
    for (const p of started) await p.stop();
    if (!o.onPostgres) rmSync(offDir, { recursive: true, force: true });
  }
}

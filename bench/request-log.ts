import { cpSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import type autocannon from 'autocannon';
import { cpuMs, peakRss, type Proc, startProcess, threadCpuMs } from './processes.ts';

export type Load = (url: string, seconds: number) => Promise<autocannon.Result>;
/** A slice's CPU ms by thread: the event loop, the busiest other thread (PGlite's), all the rest. */
export type Threads = { loop: number; busiest: number; rest: number };
export type Slice = { r: autocannon.Result; peakMb: number; cpuMs: number; threads: Threads };

export function threadsBetween(pid: number, before: Map<number, number>, after: Map<number, number>): Threads {
  const t: Threads = { loop: 0, busiest: 0, rest: 0 };
  for (const [tid, ms] of after) {
    const d = ms - (before.get(tid) ?? 0);
    if (tid === pid) t.loop = d;
    else if (d > t.busiest) {
      t.rest += t.busiest;
      t.busiest = d;
    } else t.rest += d;
  }
  return t;
}

export interface SideResult {
  /** Mean requests per second over every measured slice. */
  rps: number;
  /** The server's CPU time per answered request, every thread, in µs (unrounded): the cost free of scheduling noise. */
  cpuUs: number;
  /** The worst slice's p50 and p99. */
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  peakMb: number;
}

export interface RequestLogCost {
  /**
   * Per endpoint, in the order given: the side with the log, the side without, and the median over
   * the pairs of slices that ran next to each other of on / off (req/s, and CPU per request): on a
   * machine whose speed drifts, a pair compares like with like, and one slow slice moves the
   * median less than the mean.
   */
  results: Array<{ on: SideResult; off: SideResult; pairedRps: number; pairedCpu: number; roundsCpu: number[] }>;
  slices: number;
  rounds: number;
  sliceSeconds: number;
}

/**
 * What the request log costs: the same endpoints on two servers, one with the log and one without
 * (REQUEST_LOG=false), loaded at the same time in slices, so that they share the machine's cores at
 * each instant and whatever else the host runs slows both alike. The cost is the server's CPU time
 * per request (every thread) with the log against without: with both loaded by one process, their
 * requests per second stay close whatever either costs, so req/s is reported, not judged.
 *
 * Why loaded together: run one after the other, two runs of the same side differ by up to 30 % on a
 * shared 2-core machine; taking turns in slices (on, off, off, on, ...; BENCH_REQUEST_LOG_TURNS=1)
 * leaves pairs of the same code 20 points apart within an hour. Loaded together over four repetitions,
 * A/A pairs (BENCH_REQUEST_LOG_AA=1) come to within ~1.5 % of each other in CPU per request.
 *
 * On PGlite the server without the log gets its own copy of the data directory (PGlite admits one
 * process per directory); on PostgreSQL both use the same database.
 */
export interface RequestLogBench {
  entry: string;
  env: Record<string, string>;
  dataDir: string;
  onPostgres: boolean;
  ready: RegExp;
  /** One load per endpoint, each for the given seconds against the given server. */
  endpoints: Load[];
  /**
   * Run time per endpoint, as seconds of turns per side: split into `slices`; loaded together, each
   * side is measured for twice this in the same run time.
   */
  seconds: number;
  slices: number;
  /** Pairs of freshly started servers the slices are spread over. */
  rounds: number;
  warm: boolean;
}

/**
 * The second server's data directory: on PGlite a copy (one process per directory) of the database
 * and the blobs, not the other scenarios' upload files or the baseline's copy; on PostgreSQL the
 * same directory.
 */
export function secondDataDir(o: Pick<RequestLogBench, 'dataDir' | 'onPostgres'>, suffix: string): string {
  if (o.onPostgres) return o.dataDir;
  const dir = `${o.dataDir}-${suffix}`;
  cpSync(o.dataDir, dir, { recursive: true, filter: (src) => !/^(huge-.*|baseline|tmp)$/.test(basename(src)) });
  return dir;
}

export async function requestLogCost(o: RequestLogBench): Promise<RequestLogCost> {
  const offDir = secondDataDir(o, 'without-request-log');
  // BENCH_REQUEST_LOG_AA=1: both sides without the log, to see what the pair measures on its own.
  const onLog = process.env.BENCH_REQUEST_LOG_AA ? 'false' : 'true';
  const got = o.endpoints.map(() => ({ on: [] as Slice[], off: [] as Slice[] }));
  const together = !process.env.BENCH_REQUEST_LOG_TURNS;
  const rounds = Math.max(1, o.rounds);
  const perRound = Math.max(1, Math.ceil(o.slices / rounds));
  // Together, a slice takes the wall time two turns would: twice as long per side in the same run time.
  const sliceSeconds = Math.max(1, Math.round((o.seconds / (perRound * rounds)) * 10) / 10) * (together ? 2 : 1);
  try {
    // Repetitions with fresh servers, started in turn in opposite orders (in A/A pairs, both without the
    // log, the server started first uses ~3 % more CPU per request, whichever side it is), and on
    // PGlite with the data directories swapped every other pair of repetitions: a server's own speed
    // varies from one start to the next by a few per cent, so more starts resolve a smaller cost
    // than more slices of the same two servers.
    for (let round = 0; round < rounds; round++) {
      const onFirst = round % 2 === 0;
      const swapDirs = !o.onPostgres && (round >> 1) % 2 === 1;
      const started: Proc[] = [];
      try {
        const start = async (side: 'on' | 'off') => {
          const dir = (side === 'on') !== swapDirs ? o.dataDir : offDir;
          const env: Record<string, string> = { DATA_DIR: dir, REQUEST_LOG: side === 'on' ? onLog : 'false' };
          const p = await startProcess(o.entry, { ...o.env, ...env }, o.ready);
          started.push(p);
          return p;
        };
        const servers = {} as Record<'on' | 'off', Proc>;
        for (const side of onFirst ? (['on', 'off'] as const) : (['off', 'on'] as const))
          servers[side] = await start(side);
        const url = (p: Proc) => `http://127.0.0.1:${p.port}`;
        for (const [e, endpoint] of o.endpoints.entries()) {
          // Unmeasured: JIT, caches and the first statements of each server.
          if (o.warm) await Promise.all(started.map((p) => endpoint(url(p), 2)));
          for (let i = 0; i < perRound; i++) {
            // on, off, off, on, on, off...: neither side always goes first after the other. The
            // second repetition starts with the other side: the first slice after the warm-up runs 5-20 %
            // slower, in A/A pairs too, and must not always be the same side's.
            const order = (i + (onFirst ? 0 : 1)) % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
            const slice = async (side: 'on' | 'off', seconds: number) => {
              const pid = servers[side].child.pid!;
              const cpuBefore = cpuMs(pid);
              const threadsBefore = threadCpuMs(pid);
              const { result, peakMb } = await peakRss(pid, () => endpoint(url(servers[side]), seconds));
              const threads = threadsBetween(pid, threadsBefore, threadCpuMs(pid));
              got[e][side].push({ r: result, peakMb, cpuMs: cpuMs(pid) - cpuBefore, threads });
            };
            if (together) await Promise.all(order.map((side) => slice(side, sliceSeconds)));
            else for (const side of order) await slice(side, sliceSeconds);
          }
        }
      } finally {
        for (const p of started) await p.stop();
      }
    }
  } finally {
    if (!o.onPostgres) rmSync(offDir, { recursive: true, force: true });
  }
  return { results: summarize(got, rounds, perRound), slices: perRound * rounds, rounds, sliceSeconds };
}

/** Each endpoint's sides over every slice, printed slice by slice and summed up for the table. */
export function summarize(
  got: Array<{ on: Slice[]; off: Slice[] }>,
  rounds: number,
  perRound: number,
): RequestLogCost['results'] {
  const summary = (xs: Slice[]): SideResult => ({
    rps: Math.round(xs.reduce((n, x) => n + x.r.requests.average, 0) / xs.length),
    // Not rounded: the table's ratio is taken from it, and at ~45 µs a GET (a fast machine) whole
    // µs would move the ratio by up to 2 points (48 / 45 = 107 % for 47.6 / 45.2 = 105.3 %).
    cpuUs:
      (xs.reduce((n, x) => n + x.cpuMs, 0) * 1000) /
      Math.max(
        1,
        xs.reduce((n, x) => n + x.r.requests.total, 0),
      ),
    p50: Math.max(...xs.map((x) => x.r.latency.p50)),
    p99: Math.max(...xs.map((x) => x.r.latency.p99)),
    errors: xs.reduce((n, x) => n + x.r.errors + x.r.timeouts, 0),
    non2xx: xs.reduce((n, x) => n + x.r.non2xx, 0),
    peakMb: Math.max(...xs.map((x) => x.peakMb)),
  });
  const each = (xs: Slice[]) => xs.map((x) => Math.round(x.r.requests.average)).join(' ');
  const cpu = (xs: Slice[]) => xs.map((x) => Math.round((x.cpuMs * 1000) / Math.max(1, x.r.requests.total))).join(' ');
  // Where the CPU went, per request over every slice: a cost that is not the log's own code shows here.
  const split = (xs: Slice[]) => {
    const n = Math.max(
      1,
      xs.reduce((k, x) => k + x.r.requests.total, 0),
    );
    const us = (f: (t: Threads) => number) => ((xs.reduce((k, x) => k + f(x.threads), 0) * 1000) / n).toFixed(1);
    return `event loop ${us((t) => t.loop)}, busiest other thread ${us((t) => t.busiest)}, the rest ${us((t) => t.rest)}`;
  };
  for (const sides of got) {
    process.stdout.write(`  request log slices, req/s: on ${each(sides.on)}; off ${each(sides.off)}\n`);
    process.stdout.write(`  request log slices, CPU µs per request: on ${cpu(sides.on)}; off ${cpu(sides.off)}\n`);
    process.stdout.write(
      `  request log CPU µs per request by thread: on ${split(sides.on)}; off ${split(sides.off)}\n`,
    );
  }
  const rps = (x: Slice) => x.r.requests.average;
  const cpuPer = (x: Slice) => x.cpuMs / Math.max(1, x.r.requests.total);
  const paired = (sides: { on: Slice[]; off: Slice[] }, f: (x: Slice) => number) =>
    median(sides.on.map((on, i) => f(on) / Math.max(f(sides.off[i]), 1e-9)));
  const perRoundCpu = (sides: { on: Slice[]; off: Slice[] }) =>
    Array.from({ length: rounds }, (_, r) => {
      const cpuUs = (xs: Slice[]) => {
        const some = xs.slice(r * perRound, (r + 1) * perRound);
        return (
          some.reduce((n, x) => n + x.cpuMs, 0) /
          Math.max(
            1,
            some.reduce((n, x) => n + x.r.requests.total, 0),
          )
        );
      };
      return cpuUs(sides.on) / Math.max(cpuUs(sides.off), 1e-9);
    });
  return got.map((sides) => ({
    roundsCpu: perRoundCpu(sides),
    on: summary(sides.on),
    off: summary(sides.off),
    pairedRps: paired(sides, rps),
    pairedCpu: paired(sides, cpuPer),
  }));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

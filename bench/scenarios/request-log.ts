/**
 * What the request log costs: GET by reference and POST /v2/orders on a server with it and one
 * without, side by side in alternating slices (bench/request-log.ts). PGlite admits one process per
 * data directory, so this comes after the main server's scenarios: the main server stops and its
 * directory is copied.
 */
import { type Bench, READY, type Row, SECONDS, SMOKE, load, load1 } from '../harness.ts';
import { requestLogCost } from '../request-log.ts';
import { requestLogCrossoverCost } from '../request-log-crossover.ts';
import type { Demo } from './demo.ts';

/** The run's shape from the environment: BENCH_REQUEST_LOG_* (see docs/performance.md). */
function settings() {
  // More slices resolve a smaller cost on a machine whose speed drifts.
  const slices = SMOKE ? 2 : Number(process.env.BENCH_REQUEST_LOG_SLICES ?? 12);
  // At least 30 s of turns per side (12 slices of 2.5 s, or 12 of 5 s when loaded together)
  // whatever BENCH_SECONDS says: slices of 1 s vary by ±15 % on a shared machine, which leaves a
  // 12-slice pair's ratio ±5 % or so, as large as the cost it is there to show.
  const seconds = SMOKE ? SECONDS : Number(process.env.BENCH_REQUEST_LOG_SECONDS ?? Math.max(SECONDS, 30));
  // Two servers recording in turns (bench/request-log-crossover.ts) by default; `pair`: two servers,
  // one without the log.
  const pair = process.env.BENCH_REQUEST_LOG_METHOD === 'pair';
  // POST flat out by default: in the crossover each server is loaded as much with the log as
  // without, so how many orders its database thread happens to batch weighs on both sides, and
  // ~2,500 orders a slice resolve finer than ~750 at a paced 150/s, whose slices' CPU spreads ±20 %.
  // In the fixed pair flat out spreads ±9 points a repetition: paced at 150/s a side there.
  const postRate = SMOKE ? 0 : Number(process.env.BENCH_REQUEST_LOG_POST_RATE ?? (pair ? 150 : 0));
  // GET or POST: one endpoint of the pair (iterating on one of them).
  const only = process.env.BENCH_REQUEST_LOG_ONLY?.toUpperCase();
  const rounds = SMOKE ? (pair ? 2 : 1) : Number(process.env.BENCH_REQUEST_LOG_ROUNDS ?? (pair ? 4 : 2));
  return { slices, seconds, pair, postRate, only, rounds };
}

export async function requestLogScenarios(b: Bench, d: Demo) {
  const { f, H, env, rows } = b;
  const s = settings();
  const getReq = { path: `/v2/orders/${d.demoOrder.reference}`, headers: H(f.small.key) };
  const postReq = {
    method: 'POST',
    path: '/v2/orders',
    headers: H(f.demoKey, { 'content-type': 'application/json' }),
    setupRequest: (r: any) => ({ ...r, body: d.orderBody() }),
  };
  await b.server.stop();
  const endpoints = [
    (url: string, seconds: number) => load(url, getReq, { seconds }),
    (url: string, seconds: number) => load(url, postReq, { connections: 20, seconds, rate: s.postRate }),
  ].filter((_, i) => !s.only || s.only === ['GET', 'POST'][i]);
  const bench = {
    entry: 'dist/main.js',
    env,
    dataDir: f.dataDir,
    onPostgres: !!f.databaseUrl,
    ready: READY,
    endpoints,
    seconds: s.seconds,
    slices: s.slices,
    rounds: s.rounds,
    warm: !SMOKE,
  };
  const cost = s.pair
    ? await requestLogCost(bench)
    : await requestLogCrossoverCost({ ...bench, aa: !!process.env.BENCH_REQUEST_LOG_AA });
  const note = s.pair
    ? `${cost.slices} slices of ${cost.sliceSeconds} s per side, ${process.env.BENCH_REQUEST_LOG_TURNS ? 'taking turns with the other side (on, off, off, on, ...)' : 'both sides loaded at the same time'}, over ${cost.rounds} rounds of freshly started servers (start order and, on PGlite, data directories swapped); latencies the worst slice`
    : `crossover: two servers loaded at the same time, one recording, the other paused, the roles swapped every slice; ${cost.slices} slices of ${cost.sliceSeconds} s per side over ${cost.rounds} rounds of freshly started servers${process.env.BENCH_REQUEST_LOG_AA ? '; A/A: both paused throughout' : ''}; latencies the worst slice`;
  ['GET /v2/orders/{ref}', 'POST /v2/orders']
    .filter((name) => !s.only || name.startsWith(s.only))
    .forEach((name, i) => {
      const sides = cost.results[i];
      const add = (side: 'on' | 'off') => {
        const x = sides[side];
        const r: Row = {
          scenario: `${name} (request log ${side})`,
          rps: x.rps,
          p50: x.p50,
          p99: x.p99,
          errors: x.errors,
          non2xx: x.non2xx,
          rssMb: x.peakMb,
          load: load1(),
          note: `server CPU ${x.cpuUs.toFixed(1)} µs per request (every thread); ${note}`,
        };
        rows.push(r);
        process.stdout.write(`  ${r.scenario}: ${r.rps} req/s, p99 ${r.p99} ms\n`);
        return r;
      };
      const on = add('on');
      add('off');
      const pct = (a: number, c: number) => ((a / Math.max(c, 1)) * 100).toFixed(0);
      on.ratio = `CPU per request ${((sides.on.cpuUs / Math.max(sides.off.cpuUs, 1e-9)) * 100).toFixed(1)}% of the same without it (target ≤ 105%; by repetition ${sides.roundsCpu.map((x) => (x * 100).toFixed(1)).join(', ')}); req/s ${pct(on.rps, sides.off.rps)}%; median of adjacent slice pairs ${pct(sides.pairedRps, 1)}% (CPU ${pct(sides.pairedCpu, 1)}%)`;
    });
}

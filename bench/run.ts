/**
 * `npm run bench`: starts the service and two baselines, drives load from this process with
 * autocannon and prints one table with ratios against the baselines measured in the same run.
 * `--smoke` runs every scenario for a moment on small data (CI keeps the bench working with it).
 * `BENCH_ONLY=<regex>` picks scenario groups; the scenarios live in bench/scenarios/.
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ensureBuilt } from '../scripts/build.mjs';
import { BIG, READY, SECONDS, SMOKE, TENANTS, makeBench, want } from './harness.ts';
import { rssMb, startProcess } from './processes.ts';
import { writeReport } from './report.ts';
import { demoData } from './scenarios/demo.ts';
import { organizationScenarios } from './scenarios/organizations.ts';
import { baselines, readScenarios } from './scenarios/reads.ts';
import { renderScenarios } from './scenarios/renders.ts';
import { requestLogScenarios } from './scenarios/request-log.ts';
import { floorRows, shopifyScenario } from './scenarios/shopify-floor.ts';
import { uploadScenarios } from './scenarios/uploads.ts';
import { writeScenarios } from './scenarios/writes.ts';
import { prepare } from './setup.ts';

/** The service's environment: the memory settings docs/memory.md asks of a deployment. */
function serverEnv(f: Awaited<ReturnType<typeof prepare>>): Record<string, string> {
  return {
    DATA_DIR: f.dataDir,
    SECRET_KEY: f.secretKey,
    LOG_LEVEL: 'warn',
    // GET /metrics answers with it: the rows give the server's array buffers beside its RSS.
    OPERATOR_TOKEN: 'bench-operator-token',
    // The spec's default limits stay on: the organizations under load have per-organization overrides
    // (setup.ts), the tenants of the many-organizations scenario keep 3000/60 (50 req/s sustained).
    ...(f.databaseUrl ? { DATABASE_URL: f.databaseUrl } : {}),
    // Two malloc arenas: glibc's default (8 per core) keeps tens of MB freed by other threads
    // (libvips, the database thread, V8's compilers).
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    // A fixed mmap threshold: blocks of 1 MB and more (image rows, render buffers) go back to the
    // system when freed, where glibc's sliding threshold keeps them.
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '1048576',
    // On the embedded database, V8's young generation at 2 x 8 MB: its default grows to 2 x 16 MB
    // during start-up and stays there. On PostgreSQL, V8's default: memory is not that node's
    // constraint, and 5,000 req/s have a worse p99 with the smaller one.
    NODE_OPTIONS: [
      process.env.NODE_OPTIONS,
      process.env.BENCH_SERVER_NODE_OPTIONS ?? (f.databaseUrl ? '' : '--max-semi-space-size=8'),
    ]
      .filter(Boolean)
      .join(' '),
  };
}

/** How fast and how large the server starts: compiled, from source, and with glibc's defaults. */
async function startups(env: Record<string, string>) {
  // The server as `npm start` runs it: compiled. Its start-up and memory are compared with the same
  // server run from source through tsx (as `npm run dev` and the tests run it), same machine, same run.
  ensureBuilt();
  const fromSource = await startProcess('src/main.ts', env, READY);
  const sourceStart = { ms: fromSource.startupMs, rssMb: rssMb(fromSource.child.pid!) };
  await fromSource.stop();
  // 0 is glibc's own default, and no threshold: what a deployment that sets nothing gets.
  const { MALLOC_MMAP_THRESHOLD_: _threshold, ...glibcDefaults } = env;
  const defaultArenas = await startProcess('dist/main.js', { ...glibcDefaults, MALLOC_ARENA_MAX: '0' }, READY);
  const defaultArenasStart = { ms: defaultArenas.startupMs, rssMb: rssMb(defaultArenas.child.pid!) };
  await defaultArenas.stop();
  return { fromSource: sourceStart, defaultArenas: defaultArenasStart };
}

async function main() {
  const started = Date.now();
  // Only what the selected scenarios read is seeded: the big organization's orders for the order
  // list's pages, the tenants for the many-organizations scenario.
  const bigOrders = want('GET /v2/orders page') ? BIG : 0;
  process.stdout.write(`preparing data (${bigOrders} orders for the big organization)...\n`);
  const f = await prepare({ bigOrders, smallOrders: 1000, tenants: want('organizations') ? TENANTS : 0 });
  const env = serverEnv(f);
  const others = await startups(env);
  const server = await startProcess('dist/main.js', env, READY);
  const compiledStart = { ms: server.startupMs, rssMb: rssMb(server.child.pid!) };
  const baseline = await startProcess(
    'bench/baseline.ts',
    {
      DATA_DIR: f.baselineDataDir,
      BASELINE_TABLE: 'orders',
      ...(f.databaseUrl ? { DATABASE_URL: f.databaseUrl } : {}),
    },
    /"ready":true/,
  );
  const b = makeBench(f, env, server, baseline);
  const rssAtStartMb = rssMb(b.pid);
  try {
    // Baselines: the HTTP ceiling and the database ceiling of this machine, in this run.
    const ceilings = await baselines(b);
    const d = await demoData(b);
    await readScenarios(b, d, ceilings);
    await writeScenarios(b, d);
    await renderScenarios(b, d);
    if (want('organizations')) await organizationScenarios(b);
    if (want('upload')) await uploadScenarios(b, d);
    if (want('request log')) await requestLogScenarios(b, d);
    if (want('shopify')) await shopifyScenario(b);
    if (want('floor')) await floorRows(b);
  } finally {
    await server.stop();
    await baseline.stop();
    await f.cleanup();
    rmSync(f.dataDir, { recursive: true, force: true });
  }
  const meta = {
    date: new Date().toISOString(),
    database: f.databaseUrl ? 'postgresql' : 'pglite',
    smoke: SMOKE,
    seconds: SECONDS,
    serverRssAtStartMb: rssAtStartMb,
    startup: { compiled: compiledStart, ...others },
    loadAverage: loadavg().map((l) => Math.round(l * 10) / 10),
    bigOrders,
    durationS: Math.round((Date.now() - started) / 1000),
  };
  writeReport(b.rows, { compiled: compiledStart, ...others }, meta, f.explain);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

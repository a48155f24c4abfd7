import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ensureBuilt } from '../scripts/build.mjs';
import { READY, makeBench } from './harness.ts';
import { startProcess } from './processes.ts';
import { demoData } from './scenarios/demo.ts';
import { noisePng, prepare } from './setup.ts';

/**
 * `npx tsx bench/render-loop-cpu.ts [compositions] [images]`: the server's event loop's own CPU per
 * render, at 1000 and 2000 px. The compiled server renders the demo product's stage compositions
 * (one per stage view of each size, composition after composition as the bench's renders scenario
 * queues them, over PNG artworks of 400 px) with no other load; the main thread's CPU time
 * (`/proc/<pid>/task/<pid>/schedstat`) over the run, divided by the renders, moves far less with
 * a shared machine's load than the API's p99. Each size's run starts after a warm-up that draws
 * and stores every template, so what it counts is the steady state of a run of renders. With
 * `BENCH_CPU_PROF=1` the server writes a V8 CPU profile when it stops; the phases' times printed on
 * the monotonic clock cut it by size.
 */
const COMPOSITIONS = Number(process.argv[2] ?? 4);
const IMAGES = Number(process.argv[3] ?? 10);

const threadNs = (pid: number, tid: number) =>
  Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
const processTicks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const f = await prepare({ bigOrders: 0, smallOrders: 10, tenants: 0 });
ensureBuilt();
const env: Record<string, string> = {
  DATA_DIR: f.dataDir,
  SECRET_KEY: f.secretKey,
  LOG_LEVEL: 'warn',
  ...(f.databaseUrl ? { DATABASE_URL: f.databaseUrl } : {}),
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '1048576',
  NODE_OPTIONS: f.databaseUrl ? '' : '--max-semi-space-size=8',
};
const server = await startProcess('dist/main.js', env, READY);
const b = makeBench(f, env, server, server);
const pid = server.child.pid!;
try {
  const d = await demoData(b);
  const { api } = b;
  const product = d.printable.reference;
  /** Stage compositions of one output size, one per stage view (the formats of a view share its template). */
  const bySize = new Map<number, string[]>();
  const views = new Set<string>();
  for (const scene of (await api('GET', '/v2/scenes', f.demoKey)).data.scenes as any[]) {
    const query = `sceneReference=${scene.reference}&productReference=${product}`;
    for (const p of (await api('GET', `/v2/perspectives?${query}`, f.demoKey)).data?.perspectives ?? []) {
      const view = `${scene.reference} ${p.name.replace(/ \w+$/, '')}`;
      if (views.has(view)) continue;
      const look = await api('GET', `/v2/lookup-composition?${query}&perspectiveReference=${p.reference}`, f.demoKey);
      if (look.status !== 200) continue;
      views.add(view);
      const list = bySize.get(p.output.widthPx) ?? [];
      list.push(look.data.composition.reference);
      bySize.set(p.output.widthPx, list);
    }
  }
  const images: string[] = [];
  for (let i = 0; i < IMAGES; i++)
    images.push(
      (await api('POST', '/v2/images', f.demoKey, await noisePng(400, 400, 5000 + i), 'application/octet-stream')).data
        .image.reference,
    );
  const pending = async () => {
    const r = await api('GET', '/v2/renders?status=pending&limit=1', f.demoKey);
    return r.status === 429 || r.data.renders.length > 0;
  };
  const runAll = async (pairs: Array<[string, string]>) => {
    let queued = 0;
    for (const [c, img] of pairs) {
      for (;;) {
        const r = await api('POST', '/v2/renders', f.demoKey, {
          render: { compositionReference: c, imageReference: img },
        });
        if (r.status === 200) break;
        if (r.status !== 429) throw new Error(`render refused: ${r.status} ${JSON.stringify(r.data)}`);
        await new Promise((res) => setTimeout(res, 1000));
      }
      queued++;
    }
    while (await pending()) await new Promise((res) => setTimeout(res, 500));
    return queued;
  };
  for (const px of [1000, 2000]) {
    const comps = (bySize.get(px) ?? []).slice(0, COMPOSITIONS);
    if (comps.length === 0) throw new Error(`no stage composition of ${px} px`);
    // Warm-up: every template drawn and stored, the compositor's threads started.
    await runAll(comps.map((c) => [c, images[0]]));
    const pairs = comps.flatMap((c) => images.map((img) => [c, img] as [string, string]));
    const at = { ns: threadNs(pid, pid), ticks: processTicks(pid), ms: Date.now(), us: monotonicUs() };
    const n = await runAll(pairs);
    const mainMs = (threadNs(pid, pid) - at.ns) / 1e6;
    const allMs = (processTicks(pid) - at.ticks) * 10;
    const s = (Date.now() - at.ms) / 1000;
    process.stdout.write(
      `${px} px: ${n} renders of ${comps.length} compositions in ${s.toFixed(1)} s (${(n / s).toFixed(2)}/s); ` +
        `main thread ${(mainMs / n).toFixed(1)} ms CPU a render, every thread ${(allMs / n).toFixed(0)} ms; ` +
        `load ${loadavg()[0].toFixed(1)}; profile window ${at.us}-${monotonicUs()} µs\n`,
    );
  }
} finally {
  await server.stop();
  await f.cleanup();
}

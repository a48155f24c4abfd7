/**
 * 3D stage render scenarios: renders through the service's own path (generatedTemplate with a
 * blob store, composeRender), counting the run-time case render of every model whose template is
 * not cached yet. Per output size: the plate drawn once (cold), the first render of a never-seen
 * model in the stage (its case render, decode and compose), and the throughput of a run of renders
 * over several models, two in flight, each model's first render drawing its case.
 * `tsx bench/stage-renders.ts` runs them alone; bench/run.ts includes them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { CASE_TYPES } from '../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../src/modules/catalog/devices.ts';
import { generatedTemplate } from '../src/modules/rendering/generated.ts';
import { composeRender } from '../src/modules/rendering/renderer.ts';
import { plateFor } from '../src/modules/rendering/stage/template.ts';
import { stage } from '../src/modules/rendering/stage/stages.ts';
import { LocalBlobStore } from '../src/platform/storage.ts';

export interface StageRow {
  scenario: string;
  /** Milliseconds per operation (the slowest first render, or the mean render of a run). */
  ms: number;
  rendersPerSecond?: number;
  /** CPU time of the whole process (all threads) per operation: what a loaded machine cannot hide. */
  cpuMs: number;
  target: string;
  met: boolean;
}

/** A colourful artwork with transparent parts, like a partner's. */
async function artwork(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="2400">
  <rect y="600" width="1200" height="1800" fill="#ffd166"/><circle cx="600" cy="1400" r="420" fill="#118ab2"/>
  <rect x="100" y="1900" width="1000" height="300" fill="#ef476f"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

export async function stageScenarios(opts: { models?: number; rendersPerModel?: number } = {}): Promise<StageRow[]> {
  const modelCount = opts.models ?? 4;
  const perModel = opts.rendersPerModel ?? 6;
  const dir = mkdtempSync(join(tmpdir(), 'bench-stage-'));
  const blobs = new LocalBlobStore(dir);
  const art = await artwork();
  const devices = loadDevices().filter((d) => !d.preliminary);
  const st = stage('studio')!;
  const view = st.views[0];
  const g = { kind: 'stage' as const, stage: st.key, view: view.key };
  const rows: StageRow[] = [];
  let used = 0;
  const models = (n: number) => devices.slice(used, (used += n));
  try {
    for (const px of [1000, 2000]) {
      const output = { widthPx: px, heightPx: px, format: 'webp' as const };
      const render = async (device: (typeof devices)[number]) => {
        const t = await generatedTemplate(
          { blobs, log: console },
          g,
          { device, caseType: CASE_TYPES.tough } as never,
          output,
        );
        return composeRender({ ...t, output }, art);
      };
      const cpu = () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };
      let c0 = cpu();
      let t0 = performance.now();
      await plateFor(blobs, st, view, { width: px, height: px });
      rows.push({
        scenario: `stage plate ${px} px (once per stage, view and size)`,
        ms: Math.round(performance.now() - t0),
        cpuMs: Math.round(cpu() - c0),
        target: 'none (kept in the blob store)',
        met: true,
      });
      // The first render of models never seen before: case render, decode, compose, encode.
      let slowest = 0;
      let slowestCpu = 0;
      for (const d of models(2)) {
        c0 = cpu();
        t0 = performance.now();
        await render(d);
        if (performance.now() - t0 > slowest) {
          slowest = performance.now() - t0;
          slowestCpu = cpu() - c0;
        }
      }
      rows.push({
        scenario: `stage first render of a never-seen model, ${px} px`,
        ms: Math.round(slowest),
        cpuMs: Math.round(slowestCpu),
        target: '<= 2000 ms',
        met: slowest <= 2000,
      });
      // A run over fresh models, two in flight: each model's first render draws its case.
      const queue = models(modelCount).flatMap((d) => Array.from({ length: perModel }, () => d));
      c0 = cpu();
      t0 = performance.now();
      let next = 0;
      await Promise.all(
        [0, 1].map(async () => {
          while (next < queue.length) await render(queue[next++]);
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      const rps = Number((queue.length / seconds).toFixed(1));
      const want = px > 1000 ? 4 : 12;
      rows.push({
        scenario: `stage renders ${px} px, ${modelCount} new models x ${perModel}, 2 in flight`,
        ms: Math.round((seconds * 1000) / queue.length),
        rendersPerSecond: rps,
        cpuMs: Math.round((cpu() - c0) / queue.length),
        target: `>= ${want} renders/s`,
        met: rps >= want,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.table(await stageScenarios());
  process.exit(0);
}

/**
 * Renders: in-process against a bare pipeline (bench/mockups.ts) and through the service's path for
 * 3D stages (bench/stage-renders.ts); then the API's p99 while the server's worker renders, and
 * live previews.
 */
import { type Bench, type Row, SECONDS, SMOKE, timedRow, want } from '../harness.ts';
import { mockupScenarios } from '../mockups.ts';
import { noisePng } from '../setup.ts';
import { stageScenarios } from '../stage-renders.ts';
import type { Demo } from './demo.ts';

async function inProcess(rows: Row[]) {
  // The service's renderer at 1000 and 2000 px against a bare warp pipeline (bench/mockups.ts).
  for (const m of await mockupScenarios(SMOKE ? 2 : 12)) {
    const note = m.rendersPerSecond ? `${m.rendersPerSecond} renders/s with 2 in flight (target >= 8)` : '';
    rows.push(
      timedRow(m.scenario, m.ms, {
        rps: Math.round(1000 / m.ms),
        ratio: `${m.ratio.toFixed(2)}x bare pipeline`,
        note: `in-process, per render; bare ${m.bareMs} ms. ${note}`,
      }),
    );
  }
  // 3D stages through the service's path, counting each new model's run-time case render.
  for (const m of await stageScenarios(SMOKE ? { models: 1, rendersPerModel: 2 } : {})) {
    rows.push(
      timedRow(m.scenario, m.ms, {
        rps: m.rendersPerSecond ?? Math.round(1000 / Math.max(1, m.ms)),
        ratio: m.met ? 'target met' : 'target not met',
        note: `in-process; ${m.cpuMs} ms CPU (all threads) each; target ${m.target}`,
      }),
    );
  }
}

/** Every composition of the demo's print product, in every scene and perspective. */
async function demoCompositions(b: Bench, d: Demo): Promise<string[]> {
  const { api, f } = b;
  const product = d.printable.reference;
  const scenes = (await api('GET', '/v2/scenes', f.demoKey)).data.scenes as any[];
  const compositions: string[] = [];
  for (const scene of scenes) {
    const query = `sceneReference=${scene.reference}&productReference=${product}`;
    const persp = (await api('GET', `/v2/perspectives?${query}`, f.demoKey)).data?.perspectives ?? [];
    for (const p of persp) {
      const look = await api('GET', `/v2/lookup-composition?${query}&perspectiveReference=${p.reference}`, f.demoKey);
      if (look.status === 200) compositions.push(look.data.composition.reference);
    }
  }
  return compositions;
}

/** The median of three idle windows' p99: one slow moment of a shared machine moves a single one. */
async function idleP99(b: Bench, d: Demo): Promise<Row> {
  await b.warm(b.base, d.orderLight);
  const windows: Row[] = [];
  for (let i = 0; i < 3; i++)
    windows.push(
      await b.measure('GET /v2/orders/{ref} idle (before renders)', d.orderLight, { connections: 4, rate: 200 }),
    );
  const idle = [...windows].sort((x, y) => x.p99 - y.p99)[1];
  for (const w of windows) if (w !== idle) b.rows.splice(b.rows.indexOf(w), 1);
  idle.note = `median of three ${SECONDS} s windows' p99: ${windows.map((w) => w.p99).join(', ')} ms`;
  return idle;
}

/**
 * Renders queued on the server while the API is read: the images are uploaded first, then every
 * render is queued at once and the API is read until the worker has finished all of them.
 */
async function whileRenders(b: Bench, d: Demo) {
  const { api, f, H, measure } = b;
  const compositions = await demoCompositions(b, d);
  const renderImages: string[] = [];
  for (let i = 0; i < (SMOKE ? 2 : 20); i++)
    renderImages.push(
      (await api('POST', '/v2/images', f.demoKey, await noisePng(400, 400, 5000 + i), 'application/octet-stream')).data
        .image.reference,
    );
  const idle = await idleP99(b, d);
  // Polled with the key that queued the renders: a poll refused by its rate limit (the queueing
  // spends it) says nothing, so the renders count as still pending.
  const pending = async () => {
    const r = await api('GET', '/v2/renders?status=pending&limit=1', f.demoKey);
    return r.status === 429 || r.data.renders.length > 0;
  };
  // By composition (an image after another in each scene, the template cache warm), or with
  // `BENCH_RENDERS_BY=image` by image: one artwork in every scene and perspective, as a merchant
  // asks for a new product's mockups, each render on another template than the one before.
  const pairs =
    process.env.BENCH_RENDERS_BY === 'image'
      ? renderImages.flatMap((img) => compositions.map((c) => [c, img]))
      : compositions.flatMap((c) => renderImages.map((img) => [c, img]));
  const statuses = await Promise.all(
    pairs.map(
      async ([c, img]) =>
        (await api('POST', '/v2/renders', f.demoKey, { render: { compositionReference: c, imageReference: img } }))
          .status,
    ),
  );
  const queued = statuses.filter((st) => st === 200).length;
  if (queued === 0) throw new Error(`no render could be queued: ${statuses.join(', ') || 'no composition found'}`);
  const queuedAt = Date.now();
  let doneMs = 0;
  const rendersDone = (async () => {
    while (await pending()) await new Promise((r) => setTimeout(r, 250));
    doneMs = Date.now() - queuedAt;
  })();
  const during = await measure(
    'GET /v2/orders/{ref} while renders run',
    d.orderLight,
    { connections: 4, rate: 200, seconds: 600, until: rendersDone },
    '',
  );
  during.ratio = `p99 ${(during.p99 / Math.max(idle.p99, 1)).toFixed(2)}x idle (target 2x)`;
  during.note = `${queued} renders queued of ${statuses.length} asked (${compositions.length} compositions x ${renderImages.length} images; ${statuses.filter((st) => st === 429).length} refused by the rate limit), all done after ${(doneMs / 1000).toFixed(1)} s (${(queued / Math.max(doneMs / 1000, 0.001)).toFixed(1)} renders/s)`;

  // Live previews (POST /v2/renders/preview) at a steady editor-like rate: answered inline.
  const previewReq = {
    method: 'POST',
    path: '/v2/renders/preview',
    headers: H(f.demoKey, { 'content-type': 'application/json' }),
    body: JSON.stringify({ preview: { compositionReference: compositions[0], imageReference: renderImages[0] } }),
  };
  const previews = await measure('POST /v2/renders/preview at 4/s', previewReq, { connections: 2, rate: 4 });
  previews.ratio = `p99 ${previews.p99} ms (target well under 1 s)`;
}

export async function renderScenarios(b: Bench, d: Demo) {
  if (want('render', 'renders in-process')) await inProcess(b.rows);
  if (want('render', 'GET /v2/orders/{ref} while renders run')) await whileRenders(b, d);
}

import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { composeRender } from '../src/modules/rendering/renderer.ts';
import { PLAIN_MATERIAL } from '../src/modules/rendering/templates.ts';
import { layersPng, uvPng } from '../test/rendering/pixels.ts';
import { noisePng } from './setup.ts';

/**
 * `npx tsx bench/render-gc.ts [renders]`: what a run of renders costs the event loop itself, without
 * HTTP or a database: the main heap's collections by kind (count, total and longest pause) and the
 * loop's delay while `composeRender` runs one 1000 px WebP after another over five 400 px artworks
 * and a grainy 1000 px plate.
 * Counts move far less with the machine's load than the API's p99 does.
 */
const RENDERS = Number(process.argv[2] ?? 60);
const W = 1000;
const uv = new Float32Array(W * W * 2);
const mask = new Uint8Array(W * W);
for (let y = 0; y < W; y++)
  for (let x = 0; x < W; x++) {
    uv[(y * W + x) * 2] = Math.min(1, Math.max(0, (x - 250) / 500));
    uv[(y * W + x) * 2 + 1] = y / W;
    mask[y * W + x] = x >= 250 && x < 750 ? 255 : 0;
  }
const template = {
  // A photographic plate's grain: its output compresses like a scene's, not like a flat colour.
  background: await noisePng(W, W, 8999),
  uv: await uvPng(W, W, uv),
  layers: await layersPng(W, W, mask, new Uint8Array(W * W).fill(200), new Uint8Array(W * W)),
  material: PLAIN_MATERIAL,
  backMm: [75, 150] as [number, number],
  fit: { widthMm: 70, heightMm: 145, bleedMm: 3 },
  cacheKey: 'render-gc',
  output: { widthPx: W, heightPx: W, format: 'webp' as const },
};
const images: Buffer[] = [];
for (let i = 0; i < 5; i++) {
  // With an alpha channel, as partners' artwork often comes.
  const rgb = await sharp(await noisePng(400, 400, 9000 + i))
    .raw()
    .toBuffer();
  images.push(
    await sharp(rgb, { raw: { width: 400, height: 400, channels: 3 } })
      .joinChannel(
        await sharp(rgb, { raw: { width: 400, height: 400, channels: 3 } })
          .extractChannel(0)
          .raw()
          .toBuffer(),
        { raw: { width: 400, height: 400, channels: 1 } },
      )
      .png()
      .toBuffer(),
  );
}
// Warm: the template's decode, the compositor's thread, the spare buffers.
for (const img of images.slice(0, 2)) await composeRender(template, img);

const gcs: { kind: number; ms: number }[] = [];
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    gcs.push({ kind: (e as unknown as { detail: { kind: number } }).detail.kind, ms: e.duration });
});
observer.observe({ entryTypes: ['gc'] });
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const started = performance.now();
for (let i = 0; i < RENDERS; i++) await composeRender(template, images[i % images.length]);
const seconds = (performance.now() - started) / 1000;
delay.disable();
await new Promise((r) => setTimeout(r, 50));
observer.disconnect();
const of = (kind: number) => {
  const k = gcs.filter((g) => g.kind === kind);
  return {
    count: k.length,
    totalMs: Math.round(k.reduce((s, g) => s + g.ms, 0)),
    maxMs: Math.round(Math.max(0, ...k.map((g) => g.ms))),
  };
};
process.stdout.write(
  `${JSON.stringify({
    renders: RENDERS,
    seconds: Math.round(seconds * 10) / 10,
    fullCollections: of(constants.NODE_PERFORMANCE_GC_MAJOR),
    scavenges: of(constants.NODE_PERFORMANCE_GC_MINOR),
    loopDelayP99Ms: Math.round(delay.percentile(99) / 1e6),
    loopDelayMaxMs: Math.round(delay.max / 1e6),
  })}\n`,
);
process.exit(0);

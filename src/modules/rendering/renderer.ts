import sharp, { type Metadata, type Sharp } from 'sharp';
import { collectDeadBuffers } from './dead-buffers.ts';
import { GRAIN_SIZE } from './grain.ts';
import { MAX_EDGE, artworkLayout, grain, textureEdge } from './fit.ts';
import {
  leaseShared,
  releaseIdleWarpMemory,
  releaseShared,
  runArtwork,
  runWarp,
  thumbHashOnThreads,
} from './pixel-threads.ts';
import { type OutputFormat, RenderInputError, type Template, TemplateLoadError } from './render-template.ts';
import { type Prepared, clearTemplateCache, preparedFor } from './template-cache.ts';
import { materialParams } from './warp.ts';

export type { Material } from './warp.ts';
export { COVER_MAX_MISMATCH, MAX_EDGE, TINY_EDGE, artworkLayout } from './fit.ts';
export {
  type DrawnTemplate,
  FORMATS,
  type OutputFormat,
  type PrintArea,
  RenderInputError,
  type Template,
  type TemplateParts,
  type TemplatePictures,
  type TemplateSource,
  TemplateUnavailableError,
} from './render-template.ts';
export { PREPARED_MAX_BYTES, preparedTemplateBytes, preparedTemplates, templatesDecoded } from './template-cache.ts';

export interface RenderOutput {
  media: Buffer;
  thumbnail: Buffer;
  /** base64 */
  thumbhash: string;
}

export const THUMBNAIL_WIDTH = 256;

function encode(img: Sharp, format: OutputFormat): Promise<Buffer> {
  if (format === 'jpeg') return img.jpeg({ quality: 88, mozjpeg: false }).toBuffer();
  if (format === 'webp') return img.webp({ quality: 86, effort: 1 }).toBuffer();
  return img.png({ compressionLevel: 4 }).toBuffer();
}

async function artwork(imageBytes: Buffer, t: Parameters<typeof artworkLayout>[1], longEdge: number) {
  let meta: Metadata;
  try {
    meta = await sharp(imageBytes).metadata();
    if (!meta.width || !meta.height) throw new Error('no dimensions');
  } catch (err) {
    throw new RenderInputError(`image does not decode: ${(err as Error).message}`);
  }
  // EXIF orientations 5-8 swap width and height.
  const turned = (meta.orientation ?? 1) >= 5;
  const size = turned ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
  const f = artworkLayout(size, t, longEdge);
  // Fitted on a compositor thread straight into a leased shared buffer (artwork-kernel.ts).
  const shared = leaseShared(f.width * f.height * 4);
  try {
    await runArtwork({ image: imageBytes, width: f.width, height: f.height, art: f.art, out: shared });
  } catch (err) {
    releaseShared(shared);
    throw err;
  }
  return { data: shared, width: f.width, height: f.height };
}

/**
 * Composes the partner's image onto a template: decode and cut the layers to the output size
 * (cached), fit the artwork to the case back, warp and blend on a worker thread, encode. Pure
 * (bytes in, bytes out) so the benchmark can run it next to a bare pipeline.
 */
export async function composeRender(template: Template, imageBytes: Buffer): Promise<RenderOutput> {
  rendering++;
  try {
    return await compose(template, imageBytes);
  } catch (err) {
    // Pure CPU work on given bytes: a failure here fails again on every retry (e.g. a truncated image).
    if (err instanceof RenderInputError) throw err;
    if (err instanceof TemplateLoadError) throw err.reason;
    throw new RenderInputError(`composition failed: ${(err as Error).message}`);
  } finally {
    rendering--;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(releaseRenderMemory, RENDER_IDLE_MS).unref();
    // A thread that ended takes its collection with it: nothing to report.
    void collectDeadBuffers().catch(() => {});
  }
}

/**
 * Renders come in runs. Between runs, an API node that also renders should not hold the decoded
 * templates, spare buffers and warp threads (~50-100 MB at 1000 px): after this long without a render
 * they go, and the next render pays one template decode (~0.1 s) and a thread start.
 */
export const RENDER_IDLE_MS = 20_000;
let rendering = 0;
let idleTimer: NodeJS.Timeout | undefined;

/**
 * What the idle timer runs; exported for tests. Does nothing while a render is under way. A call
 * from elsewhere cancels the pending timer, so it cannot go off later in the middle of a run.
 */
export function releaseRenderMemory(): void {
  clearTimeout(idleTimer);
  idleTimer = undefined;
  if (rendering > 0) return;
  clearTemplateCache();
  releaseIdleWarpMemory();
}

/** Checks an output size before any pixel work. */
export function checkOutput(o: { widthPx: number; heightPx: number }): string | null {
  if (!Number.isInteger(o.widthPx) || !Number.isInteger(o.heightPx) || o.widthPx < 16 || o.heightPx < 16)
    return 'output must be at least 16x16 whole pixels';
  if (Math.max(o.widthPx, o.heightPx) > MAX_EDGE) return `output is at most ${MAX_EDGE} px on its long edge`;
  return null;
}

async function compose(template: Template, imageBytes: Buffer): Promise<RenderOutput> {
  const problem = checkOutput(template.output);
  if (problem) throw new RenderInputError(`template output: ${problem}`);
  const held = preparedFor(template);
  try {
    return await composeWith(await held.layers, template, imageBytes);
  } finally {
    held.done();
  }
}

async function composeWith(p: Prepared, template: Template, imageBytes: Buffer): Promise<RenderOutput> {
  const art = await artwork(imageBytes, template, textureEdge(p.texels, template.backMm, Math.max(p.width, p.height)));
  const out = leaseShared(p.width * p.height * 3);
  try {
    await runWarp({
      width: p.width,
      height: p.height,
      out,
      background: p.background,
      box: p.box,
      uv: p.uv,
      layers: p.layers,
      art: art.data,
      artWidth: art.width,
      artHeight: art.height,
      backMm: template.backMm,
      grainTex: await grain(),
      grainSize: GRAIN_SIZE,
      params: materialParams(template.material),
    });
    const pixels = Buffer.from(out.buffer);
    const composed = () => sharp(pixels, { raw: { width: p.width, height: p.height, channels: 3 } });
    const format = template.output.format;
    const thumbWidth = Math.min(THUMBNAIL_WIDTH, p.width);
    // One after the other: in parallel the three pipelines kept three threads busy at once, more than
    // a 2-core node can give a background render without delaying the API.
    const media = await encode(composed(), format);
    const thumbnail = await encode(composed().resize({ width: thumbWidth }), format);
    const thumbhash = await thumbhashOf(composed());
    return { media, thumbnail, thumbhash };
  } finally {
    // Every reader is done: the warp thread has answered and the encodes above were awaited.
    releaseShared(out);
    releaseShared(art.data);
  }
}

/** ThumbHash wants RGBA of at most 100x100. */
export async function thumbhashOf(image: Sharp): Promise<string> {
  const { data, info } = await image
    .resize(100, 100, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return Buffer.from(await thumbHashOnThreads(info.width, info.height, data)).toString('base64');
}

import sharp, { type Metadata, type Sharp } from 'sharp';
import {
  leaseShared,
  leasedCopy,
  releaseIdleWarpMemory,
  releaseShared,
  retainShared,
  runArtwork,
  runWarp,
  thumbHashOnThreads,
} from './pixel-threads.ts';
import { MAX_EDGE, artworkLayout, grain } from './fit.ts';
import { GRAIN_SIZE } from './grain.ts';
import type { PrintFit } from '../catalog/artwork-fit.ts';
import { cutBox, maskBox } from './mask-box.ts';
import { type RawTemplate, isRawTemplate, rawLayers } from './raw-template.ts';
import { type MaskBox, type Material, materialParams } from './warp.ts';

export type { Material } from './warp.ts';
export { COVER_MAX_MISMATCH, MAX_EDGE, TINY_EDGE, artworkLayout } from './fit.ts';

export type OutputFormat = 'png' | 'jpeg' | 'webp';

export const FORMATS: Record<OutputFormat, { mimeType: string; extension: string }> = {
  png: { mimeType: 'image/png', extension: 'png' },
  jpeg: { mimeType: 'image/jpeg', extension: 'jpg' },
  webp: { mimeType: 'image/webp', extension: 'webp' },
};

/** Where a rectangle template's image goes on the background, in background pixels. */
export interface PrintArea {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Degrees, clockwise, about the print area's centre. */
  rotation: number;
}

/** A render that can never succeed (bad template or image): retrying is pointless. */
export class RenderInputError extends Error {}

/** A template's three pictures, all of one size (the template's). */
export interface TemplatePictures {
  /** The scene with the phone and case in it, RGB. */
  background: Buffer;
  /** 16-bit PNG: R = u, G = v (0..65535 across the case back) of the artwork each pixel shows. */
  uv: Buffer;
  /** R = mask (255: the printed back), G = shading (multiply), B = highlight (screen). */
  layers: Buffer;
}

/**
 * A template's pictures given, or read by `load` only when their decoded layers are not held: a
 * render of a held template then reads nothing (its three files, ~1-2 MB, would otherwise be read
 * and left for the collector on every render). `load` needs the cache key the decoded layers are held under.
 */
export type TemplateSource =
  | TemplatePictures
  | { load: () => Promise<TemplatePictures | RawTemplate>; cacheKey: string };

/** What a composition needs besides its output size. */
export type TemplateParts = TemplateSource & {
  material: Material;
  /** What the UV map spans, mm, centred on the print area (the print area, or it and its bleed). */
  backMm: [number, number];
  /** The product's print area and bleed the artwork is fitted to (the fit rule); none: `backMm`. */
  fit?: PrintFit;
  /** Names this template for the decoded-layer cache (e.g. its blob keys); none: not cached. */
  cacheKey?: string;
};

/** A template drawn or converted here: its pictures and its look. */
export type DrawnTemplate = TemplatePictures & { material: Material; backMm: [number, number] };

/**
 * Everything a composition needs. The output may be another size than the template's pictures and
 * is cut from them like `fit: cover`.
 */
export type Template = TemplateParts & { output: { widthPx: number; heightPx: number; format: OutputFormat } };

/** A template's pictures could not be read (storage): not the render's fault, so it may be retried. */
class TemplateLoadError extends Error {
  constructor(readonly reason: unknown) {
    super('template pictures could not be read');
  }
}

/** A template's pictures are gone (a deleted asset or scene file): the composition's fault. */
export class TemplateUnavailableError extends RenderInputError {}

async function picturesOf(t: Template): Promise<TemplatePictures | RawTemplate> {
  if (!('load' in t)) return t;
  try {
    return await t.load();
  } catch (err) {
    throw err instanceof RenderInputError ? new TemplateUnavailableError(err.message) : new TemplateLoadError(err);
  }
}

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

/**
 * A template's layers decoded and cut to one output size, in shared memory for the warp threads.
 * The UV map and the layers are kept for the mask's box alone: outside it a render shows the
 * background, and the case back covers a third of a scene's frame or less (3 + 7 x box bytes a
 * pixel instead of 10).
 */
interface Prepared {
  width: number;
  height: number;
  background: Uint8Array;
  box: MaskBox;
  uv: Uint16Array;
  layers: Uint8Array;
  bytes: number;
}

/**
 * Decoded layers of the last templates used: decoding a 16-bit UV map costs more than the warp.
 * Bounded in bytes, not entries (a 2000 px scene ~20 MB, so a few of those are over 100 MB), and
 * it always keeps the one just used. Templates of the benchmark's four perspectives and their
 * previews take ~14 MB.
 */
export const PREPARED_MAX_BYTES = 48 * 1024 * 1024;
/** What a template is counted at while it decodes (its background); decoded, what it holds. */
const PREPARED_MIN_BYTES_PER_PIXEL = 3;
interface Held {
  layers: Promise<Prepared>;
  bytes: number;
  /** Renders reading it now. */
  readers: number;
  /** Let go by the cache: its background goes back to the spares once no render reads it. */
  evicted: boolean;
}
const prepared = new Map<string, Held>();
let preparedBytes = 0;
/** Templates decoded since the process started (tests: whether a held one was used). */
let templateDecodes = 0;

function forget(key: string): void {
  const entry = prepared.get(key);
  if (!entry) return;
  prepared.delete(key);
  preparedBytes -= entry.bytes;
}

/** Backgrounds of drawings already taken into the cache. */
const drawnTaken = new WeakSet<ArrayBufferLike>();

/** A template drawn here at the output's size, taken as drawn: nothing to encode or decode. */
async function prepareDrawn(t: RawTemplate): Promise<Prepared> {
  // A drawing handed to two decodes (its template let go by the cache and asked for again while it
  // was being drawn) is the background of both: it goes to the spares once both have let it go.
  if (drawnTaken.has(t.background.buffer)) retainShared(t.background);
  else drawnTaken.add(t.background.buffer);
  const { box, uv, layers } = await rawLayers(t);
  templateDecodes++;
  return withBytes(t.width, t.height, t.background, box, uv, layers);
}

/** A decoded template with its size in bytes, which the cache's cap counts. */
function withBytes(
  width: number,
  height: number,
  background: Uint8Array,
  box: Prepared['box'],
  uv: Prepared['uv'],
  layers: Uint8Array,
): Prepared {
  return {
    width,
    height,
    background,
    box,
    uv,
    layers,
    bytes: background.byteLength + uv.byteLength + layers.byteLength,
  };
}

async function prepare(t: Template): Promise<Prepared> {
  const { widthPx: width, heightPx: height } = t.output;
  const pictures = await picturesOf(t);
  if (isRawTemplate(pictures)) {
    if (pictures.width !== width || pictures.height !== height)
      throw new RenderInputError(`template drawn at ${pictures.width}x${pictures.height}, not the output's size`);
    return prepareDrawn(pictures);
  }
  const cut = { width, height, fit: 'cover' as const, kernel: 'linear' as const };
  const raw = async (what: string, img: () => Sharp, depth: 'uchar' | 'ushort', box?: MaskBox) => {
    try {
      const resized = img().resize(cut);
      const { data, info } = await (box ? resized.extract(box) : resized)
        .raw({ depth })
        .toBuffer({ resolveWithObject: true });
      return { data, channels: info.channels };
    } catch (err) {
      throw new RenderInputError(`template ${what} does not decode: ${(err as Error).message}`);
    }
  };
  const bg = await raw(
    'background',
    () => sharp(pictures.background).flatten({ background: '#ffffff' }).toColourspace('srgb').removeAlpha(),
    'uchar',
  );
  const layers = await raw('layers', () => sharp(pictures.layers).toColourspace('srgb').removeAlpha(), 'uchar');
  if (bg.channels !== 3 || layers.channels !== 3) throw new RenderInputError('template layers must be RGB images');
  const box = await maskBox(layers.data, width, height);
  const n = box.width * box.height;
  const uv = new Uint16Array(new SharedArrayBuffer(n * 4));
  if (n > 0) {
    // u and v as two planes of 16-bit values, each band extracted by libvips and cut to the box
    // (two decodes of a map that is decoded once per template and held): no per-pixel loop here.
    const plane = (band: 0 | 1) =>
      raw('uv map', () => sharp(pictures.uv).toColourspace('rgb16').removeAlpha().extractChannel(band), 'ushort', box);
    const u = await plane(0);
    const v = await plane(1);
    if (u.channels !== 1 || v.channels !== 1) throw new RenderInputError('template layers must be RGB images');
    const bytes = new Uint8Array(uv.buffer);
    bytes.set(u.data, 0);
    bytes.set(v.data, n * 2);
  }
  templateDecodes++;
  return withBytes(width, height, leasedCopy(bg.data), box, uv, cutBox(layers.data, width, box, 3));
}

/** A template's decoded layers for one render, and what the render calls once it has read them. */
function preparedFor(t: Template): { layers: Promise<Prepared>; done: () => void } {
  if (!t.cacheKey) return { layers: prepare(t), done: () => {} };
  const key = `${t.cacheKey}@${t.output.widthPx}x${t.output.heightPx}`;
  let entry = prepared.get(key);
  if (!entry) {
    const layers = prepare(t);
    const held: Held = {
      layers,
      bytes: t.output.widthPx * t.output.heightPx * PREPARED_MIN_BYTES_PER_PIXEL,
      readers: 0,
      evicted: false,
    };
    layers.then(
      (p) => {
        if (prepared.get(key) !== held) return;
        preparedBytes += p.bytes - held.bytes;
        held.bytes = p.bytes;
        evictOverBudget();
      },
      () => {
        if (prepared.get(key) === held) forget(key);
      },
    );
    entry = held;
  }
  forget(key); // (re-)inserted: most recently used last
  prepared.set(key, entry);
  preparedBytes += entry.bytes;
  evictOverBudget();
  const reading = entry;
  reading.readers++;
  return {
    layers: reading.layers,
    done: () => {
      reading.readers--;
      letGo(reading);
    },
  };
}

function evictOverBudget(): void {
  while (preparedBytes > PREPARED_MAX_BYTES && prepared.size > 1) {
    const [key, entry] = prepared.entries().next().value!;
    forget(key);
    entry.evicted = true;
    letGo(entry);
  }
}

/**
 * A template the cache let go hands its frame-size background (the length of a render's output at
 * that size) to the spares once no render reads it, for the next template or output of that size:
 * left to the collector, it stayed until the main heap's next full collection, on top of the new.
 * Its UV map and layers are cut to its mask's box, lengths no other buffer has, and go to the
 * collector.
 */
function letGo(entry: Held): void {
  if (!entry.evicted || entry.readers > 0) return;
  entry.layers.then(
    (p) => releaseShared(p.background),
    () => {},
  );
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
  prepared.clear();
  preparedBytes = 0;
  releaseIdleWarpMemory();
}

/** Templates whose decoded layers are held (tests). */
export function preparedTemplates(): number {
  return prepared.size;
}

/** Templates decoded from their pictures since the process started (tests). */
export function templatesDecoded(): number {
  return templateDecodes;
}

/** Bytes of decoded layers held (tests). */
export function preparedTemplateBytes(): number {
  return preparedBytes;
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
  const art = await artwork(imageBytes, template, Math.max(p.width, p.height));
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

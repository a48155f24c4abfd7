import sharp, { type Sharp } from 'sharp';
import { cutBox, maskBox } from './mask-box.ts';
import { leasedCopy, releaseShared, retainShared, runTexels } from './pixel-threads.ts';
import { type RawTemplate, isRawTemplate, rawLayers } from './raw-template.ts';
import { RenderInputError, type Template, picturesOf } from './render-template.ts';
import type { MaskBox } from './warp.ts';

/**
 * A template's layers decoded and cut to one output size, in shared memory for the warp threads.
 * The UV map and the layers are kept for the mask's box alone: outside it a render shows the
 * background, and the case back covers a third of a scene's frame or less (3 + 7 x box bytes a
 * pixel instead of 10).
 */
export interface Prepared {
  width: number;
  height: number;
  background: Uint8Array;
  box: MaskBox;
  uv: Uint16Array;
  layers: Uint8Array;
  /** Pixels per unit of u and of v on the back (texels.ts): the artwork's texture is fitted at that size. */
  texels: [number, number];
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
  return withBytes(t.width, t.height, t.background, box, uv, layers, await runTexels({ box, uv, layers }));
}

/** A decoded template with its size in bytes, which the cache's cap counts. */
function withBytes(
  width: number,
  height: number,
  background: Uint8Array,
  box: Prepared['box'],
  uv: Prepared['uv'],
  layers: Uint8Array,
  texels: [number, number],
): Prepared {
  return {
    width,
    height,
    background,
    box,
    uv,
    layers,
    texels,
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
  const boxLayers = cutBox(layers.data, width, box, 3);
  return withBytes(
    width,
    height,
    leasedCopy(bg.data),
    box,
    uv,
    boxLayers,
    await runTexels({ box, uv, layers: boxLayers }),
  );
}

/** A template's decoded layers for one render, and what the render calls once it has read them. */
export function preparedFor(t: Template): { layers: Promise<Prepared>; done: () => void } {
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
 * the collector frees a shared buffer only at the main heap's next full collection, so a dead one
 * would sit beside its successor until then.
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

/** Lets every decoded template go (the render idle timer, between runs of renders). */
export function clearTemplateCache(): void {
  prepared.clear();
  preparedBytes = 0;
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

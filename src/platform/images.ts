import { readFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { threadCount, threadIds, toBackground } from './background-threads.ts';
import { ApiError } from './errors.ts';
import { imageMemoryBudget, withDecodeSlot as withDecodeMemory } from './memory/decodes.ts';

/**
 * Inspection and normalisation of untrusted JPEG/PNG uploads (partner images, claim evidence), and
 * the process-wide sharp settings (set here only). All pixel work runs in libvips threads, so the
 * event loop stays free while a large image is decoded or downsized.
 */

export type ImageFormat = 'jpeg' | 'png';

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
}

interface Fitted extends ImageInfo {
  /** True when the image was larger than the box and has been downsized. */
  resized: boolean;
  originalWidth: number;
  originalHeight: number;
}

export interface FittedImage extends Fitted {
  bytes: Buffer;
}

/** A downsized image written to a file, or the input file itself when it already fitted. */
export interface FittedFile extends Fitted {
  path: string;
  size: number;
}

/** An image on disk (an upload body): sharp reads it from there, never whole into memory. */
export interface ImageFile {
  path: string;
  size: number;
}

/** What the checks read: the input for sharp, its size and its first bytes (for the magic number). */
interface Source {
  input: Buffer | string;
  size: number;
  head: Buffer;
}

async function sourceOf(from: Buffer | ImageFile): Promise<Source> {
  if (Buffer.isBuffer(from)) return { input: from, size: from.length, head: from.subarray(0, 8) };
  const head = Buffer.alloc(Math.min(8, from.size));
  if (head.length > 0) {
    const fh = await open(from.path, 'r');
    try {
      await fh.read(head, 0, head.length, 0);
    } finally {
      await fh.close();
    }
  }
  return { input: from.path, size: from.size, head };
}

/**
 * Largest decoded size accepted: far above any printable phone-case image, and small enough that a
 * decompression bomb (a few KB claiming billions of pixels) is refused from its header.
 */
export const DEFAULT_MAX_INPUT_PIXELS = 150_000_000;

/** A pathological file must not hold a decode slot for ever. */
const PROCESSING_TIMEOUT_SECONDS = 120;

const MB = 1024 * 1024;
/** libvips' buffers, tiles and thread stacks of one streaming decode. */
const STREAMING_OVERHEAD = 24 * MB;

const invalid = (message: string) => new ApiError('invalid_image', message);

// libvips keeps recent operations and their pixels (up to 50 MB) for reuse; every upload and render
// here works on different bytes, so the cache would only add to the server's memory.
sharp.cache(false);
// sharp.concurrency() is left at its default: 1 thread per pipeline on glibc without jemalloc (this
// server), the number of cores elsewhere. A pipeline still keeps about one core busy while it runs.

/** How soon a thread that libvips starts during an operation is found and lowered. */
const RESCAN_MS = 25;
/** tid -> sightings of the thread under another name; 2 means settled (lowered, or not libvips'). */
const threadSightings = new Map<string, number>();
/** The longest time between two looks at the thread list while image work runs. */
const FULL_LOOK_MS = 1000;
/** The last look: the process's thread count then, when, and whether a thread was left to name. */
let lastLook = { count: -1, at: 0, unsettled: false };

/**
 * libvips' worker threads go to the background (background-threads.ts: SCHED_IDLE, else nice 10).
 * On a small node the event loop, the database and the pixel work of uploads and renders compete
 * for the same cores; API requests must not wait behind a 7500x7500 decode or a run of renders
 * (the renders themselves take longer on a busy node: they are background work).
 */
function lowerImageThreadPriority(): void {
  // The threads are listed again only when their number has changed, a new one has still to be
  // named, or a second has passed (a thread that ended and one that started between two looks leave
  // the number as it was): a look costs the event loop 50-150 us, 40 times a second while renders run.
  const count = threadCount();
  const now = performance.now();
  if (count !== null && count === lastLook.count && !lastLook.unsettled && now - lastLook.at < FULL_LOOK_MS) return;
  const tids = threadIds();
  for (const tid of threadSightings.keys()) if (!tids.has(tid)) threadSightings.delete(tid);
  const found: string[] = [];
  for (const tid of tids) {
    // A new thread names itself just after it starts: only a second sighting settles another name.
    const seen = threadSightings.get(tid) ?? 0;
    if (seen >= 2) continue;
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== 'libvips worker') {
        threadSightings.set(tid, seen + 1);
      } else {
        found.push(tid);
        threadSightings.set(tid, 2);
      }
    } catch {
      // the thread has just exited
    }
  }
  lastLook = { count: count ?? -1, at: now, unsettled: [...threadSightings.values()].some((seen) => seen < 2) };
  if (found.length > 0) toBackground(found);
}

let imageWork = 0;
let rescan: NodeJS.Timeout | null = null;

/**
 * Runs image work (decodes, renders) with libvips' threads below the event loop's priority. libvips
 * keeps its threads between operations but starts new ones at the creating thread's priority, so
 * while any such work runs the threads are looked at again every few ms (~5 us when their number
 * is unchanged).
 */
export async function asBackgroundImageWork<T>(fn: () => Promise<T>): Promise<T> {
  if (process.platform !== 'linux') return fn();
  imageWork++;
  lowerImageThreadPriority();
  rescan ??= setInterval(lowerImageThreadPriority, RESCAN_MS).unref();
  try {
    return await fn();
  } finally {
    lowerImageThreadPriority();
    if (--imageWork === 0 && rescan) {
      clearInterval(rescan);
      rescan = null;
    }
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Magic numbers first, so that no other libvips loader (SVG, TIFF, HEIF, ...) ever sees untrusted
 * bytes; the decoder then has the final word.
 */
function sniff(bytes: Buffer): ImageFormat | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  return null;
}

/** A decode in its slot (memory/decodes.ts), its libvips threads below the event loop. */
const withDecodeSlot = <T>(bytes: number, fn: () => Promise<T>): Promise<T> =>
  withDecodeMemory(bytes, () => asBackgroundImageWork(fn));

/**
 * What one decode holds at its peak, from the header (measured with libvips 8.17: within 10% for
 * these cases). Interlaced PNGs (Adam7) are decoded whole; progressive JPEGs keep every DCT
 * coefficient (2 bytes each, chroma subsampled) until their last scan; baseline JPEGs and plain PNGs
 * stream a few rows at a time. Output is encoded as it is produced (no optimised Huffman tables,
 * which would keep every coefficient of the output too).
 */
function decodeMemory(meta: Metadata, width: number, height: number): number {
  const pixels = width * height;
  const channels = meta.channels ?? 4;
  const sampleBytes = meta.depth === 'ushort' ? 2 : 1;
  let whole = 0;
  if (meta.format === 'png' && meta.isProgressive) whole = pixels * channels * sampleBytes;
  else if (meta.format === 'jpeg' && meta.isProgressive) {
    const chroma = meta.chromaSubsampling?.startsWith('4:2:0')
      ? 0.25
      : meta.chromaSubsampling?.startsWith('4:2:2')
        ? 0.5
        : 1;
    whole = pixels * 2 * (channels === 1 ? 1 : 1 + (channels - 1) * chroma);
  }
  return whole + width * channels * sampleBytes * 256 + STREAMING_OVERHEAD;
}

/** Format, dimensions and the pixel limit, from the header only. Throws `400 invalid_image`. */
async function readHeader(src: Source, maxPixels: number): Promise<ImageInfo & { memory: number }> {
  if (src.size === 0) throw invalid('The body is empty; send the bytes of a JPEG or PNG image');
  const format = sniff(src.head);
  if (!format) throw invalid('The body is not a JPEG or PNG image; only JPEG and PNG are accepted');

  let meta: Metadata;
  try {
    // Reads the header only; the pixel limit is checked below with a clearer message.
    meta = await sharp(src.input, { limitInputPixels: false, failOn: 'truncated' }).metadata();
  } catch {
    throw invalid(`The ${format.toUpperCase()} header is damaged; the image cannot be read`);
  }
  if (meta.format !== format) throw invalid('The body is not a JPEG or PNG image; only JPEG and PNG are accepted');
  const { width, height } = meta;
  if (!width || !height) throw invalid(`The ${format.toUpperCase()} image has no dimensions`);
  if (width * height > maxPixels) {
    throw invalid(
      `The image claims ${width}x${height} pixels, more than the ${maxPixels.toLocaleString('en')} pixels accepted`,
    );
  }
  const memory = decodeMemory(meta, width, height);
  if (memory > imageMemoryBudget()) {
    const kind = format === 'png' ? 'an interlaced PNG' : 'a progressive JPEG';
    const plain = format === 'png' ? 'a PNG without interlacing' : 'a baseline JPEG';
    throw invalid(
      `The image is ${kind} of ${width}x${height} pixels: decoding it would need about ${Math.ceil(memory / MB)} MB, more than the ${Math.floor(imageMemoryBudget() / MB)} MB an image may use; send it as ${plain}, or smaller`,
    );
  }
  return { format, width, height, memory };
}

const undecodable = (format: ImageFormat) =>
  invalid(`The ${format.toUpperCase()} image is truncated or corrupt and cannot be decoded`);

/** Seconds a client is asked to wait before sending an image whose decode ran out of time again. */
const BUSY_RETRY_SECONDS = 30;

/**
 * What a failed decode tells the client. libvips' threads are background work (SCHED_IDLE), so on a
 * node that other work keeps busy a decode can run out of its time without anything wrong in the
 * image: that is `503 service_busy` with a Retry-After, not a corrupt image. libvips names the
 * timeout `timeout: N% complete`.
 */
export function decodeFailure(err: unknown, format: ImageFormat): ApiError {
  if (err instanceof ApiError) return err;
  if (/^timeout: \d+% complete/.test((err as Error)?.message ?? ''))
    return new ApiError(
      'service_busy',
      `The ${format.toUpperCase()} image could not be processed within ${PROCESSING_TIMEOUT_SECONDS} s on this busy node; send it again in ${BUSY_RETRY_SECONDS} s`,
      { headers: { 'retry-after': String(BUSY_RETRY_SECONDS) } },
    );
  return undecodable(format);
}

/** A small decode of every pixel row: truncated or corrupt data fails here, nothing large is allocated. */
async function checkDecodes(src: Source, format: ImageFormat, maxPixels: number, memory: number): Promise<void> {
  try {
    await withDecodeSlot(memory, () =>
      sharp(src.input, { limitInputPixels: maxPixels, failOn: 'truncated', sequentialRead: true })
        .timeout({ seconds: PROCESSING_TIMEOUT_SECONDS })
        .resize(64, 64, { fit: 'inside' })
        .raw()
        .toBuffer(),
    );
  } catch (err) {
    throw decodeFailure(err, format);
  }
}

/**
 * Checks that `image` (bytes, or a file) is a complete, decodable JPEG or PNG and returns its format
 * and size. Dimensions are checked from the header before any pixel is decoded. Throws `400 invalid_image`.
 */
export async function inspectImage(image: Buffer | ImageFile, opts: { maxPixels?: number } = {}): Promise<ImageInfo> {
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  const src = await sourceOf(image);
  const { memory, ...info } = await readHeader(src, maxPixels);
  await checkDecodes(src, info.format, maxPixels, memory);
  return info;
}

/**
 * The checks of `inspectImage`, then `encode`: null when the image is within `max` x `max` (checked
 * by a small decode), else the downsizing pipeline (aspect ratio, format and metadata kept), which
 * the caller runs through `run` (a decode slot; failures become `400 invalid_image`) into its own
 * sink, a buffer or a file.
 */
async function fit(
  image: Buffer | ImageFile,
  max: number,
  opts: { maxPixels?: number },
): Promise<{
  header: ImageInfo;
  original: { originalWidth: number; originalHeight: number };
  encode: Sharp | null;
  run: <T>(sink: () => Promise<T>) => Promise<T>;
}> {
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  const src = await sourceOf(image);
  const { memory, ...header } = await readHeader(src, maxPixels);
  const original = { originalWidth: header.width, originalHeight: header.height };
  const run = async <T>(sink: () => Promise<T>): Promise<T> => {
    try {
      return await withDecodeSlot(memory, sink);
    } catch (err) {
      throw decodeFailure(err, header.format);
    }
  };
  if (header.width <= max && header.height <= max) {
    await checkDecodes(src, header.format, maxPixels, memory);
    return { header, original, encode: null, run };
  }
  // Downsizing decodes every row itself and fails on truncated data: a check decode first would
  // decode the whole image twice (for 7500x7500, ~0.2 s more of a core competing with requests).
  const pipeline = sharp(src.input, { limitInputPixels: maxPixels, failOn: 'truncated', sequentialRead: true })
    .timeout({ seconds: PROCESSING_TIMEOUT_SECONDS })
    .resize(max, max, { fit: 'inside', withoutEnlargement: true })
    .keepMetadata();
  const encode =
    header.format === 'jpeg'
      ? pipeline.jpeg({ quality: 95, optimiseCoding: false })
      : pipeline.png({ compressionLevel: 6 });
  return { header, original, encode, run };
}

/**
 * Downsizes an image to fit inside `max` x `max`, keeping its aspect ratio, format and metadata
 * (orientation, colour profile), with the checks of `inspectImage`. Smaller images come back as the
 * very same bytes.
 */
export async function fitWithin(bytes: Buffer, max: number, opts: { maxPixels?: number } = {}): Promise<FittedImage> {
  const { header, original, encode, run } = await fit(bytes, max, opts);
  if (!encode) return { ...header, ...original, bytes, resized: false };
  const out = await run(() => encode.toBuffer({ resolveWithObject: true }));
  return { ...header, width: out.info.width, height: out.info.height, bytes: out.data, resized: true, ...original };
}

/**
 * `fitWithin` from a file to a file: the encoder writes `outPath` as it goes, so neither the input
 * nor the output is ever whole in memory (for a 7500x7500 PNG, 34-44 MB in and ~62 MB out). An image
 * that already fits comes back as the input file itself; `outPath` is then not written. On a
 * failure nothing is left at `outPath`.
 */
export async function fitFileWithin(
  file: ImageFile,
  max: number,
  outPath: string,
  opts: { maxPixels?: number } = {},
): Promise<FittedFile> {
  const { header, original, encode, run } = await fit(file, max, opts);
  if (!encode) return { ...header, ...original, path: file.path, size: file.size, resized: false };
  try {
    const info = await run(() => encode.toFile(outPath));
    return {
      ...header,
      width: info.width,
      height: info.height,
      path: outPath,
      size: info.size,
      resized: true,
      ...original,
    };
  } catch (err) {
    await rm(outPath, { force: true });
    throw err;
  }
}

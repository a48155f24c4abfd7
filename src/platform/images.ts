import sharp, { type Metadata, type OutputInfo } from 'sharp';
import { ApiError } from './errors.ts';

/**
 * Inspection and normalisation of untrusted JPEG/PNG uploads (partner images, claim evidence).
 * All pixel work runs in sharp's (libvips) own thread pool, so the event loop stays free while a
 * large image is decoded or downsized.
 */

export type ImageFormat = 'jpeg' | 'png';

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
}

export interface FittedImage extends ImageInfo {
  bytes: Buffer;
  /** True when the image was larger than the box and has been downsized. */
  resized: boolean;
  originalWidth: number;
  originalHeight: number;
}

/**
 * Largest decoded size accepted: far above any printable phone-case image, and small enough that a
 * decompression bomb (a few KB claiming billions of pixels) is refused from its header.
 */
export const DEFAULT_MAX_INPUT_PIXELS = 150_000_000;

/** Several large decodes at once would multiply memory; the rest wait their turn. */
const MAX_PARALLEL_DECODES = 2;
/** A pathological file must not hold a decode slot for ever. */
const PROCESSING_TIMEOUT_SECONDS = 120;

const invalid = (message: string) => new ApiError(400, 'invalid_image', message);

// libvips keeps recent operations and their pixels (up to 50 MB) for reuse; every upload and render
// here works on different bytes, so the cache would only add to the server's memory.
sharp.cache(false);

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

let running = 0;
const waiting: Array<() => void> = [];

async function withDecodeSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL_DECODES) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * Checks that `bytes` are a complete, decodable JPEG or PNG and returns its format and size.
 * Dimensions are checked from the header before any pixel is decoded. Throws `400 invalid_image`.
 */
export async function inspectImage(bytes: Buffer, opts: { maxPixels?: number } = {}): Promise<ImageInfo> {
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  if (bytes.length === 0) throw invalid('The body is empty; send the bytes of a JPEG or PNG image');
  const format = sniff(bytes);
  if (!format) throw invalid('The body is not a JPEG or PNG image; only JPEG and PNG are accepted');

  let meta: Metadata;
  try {
    // Reads the header only; the pixel limit is checked below with a clearer message.
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'truncated' }).metadata();
  } catch {
    throw invalid(`The ${format.toUpperCase()} header is damaged; the image cannot be read`);
  }
  if (meta.format !== format) throw invalid('The body is not a JPEG or PNG image; only JPEG and PNG are accepted');
  const { width, height } = meta;
  if (!width || !height) throw invalid(`The ${format.toUpperCase()} image has no dimensions`);
  if (width * height > maxPixels) {
    throw invalid(`The image claims ${width}x${height} pixels, more than the ${maxPixels.toLocaleString('en')} pixels accepted`);
  }

  try {
    // A small decode of every pixel row: truncated or corrupt data fails here, nothing large is allocated.
    await withDecodeSlot(() =>
      sharp(bytes, { limitInputPixels: maxPixels, failOn: 'truncated', sequentialRead: true })
        .timeout({ seconds: PROCESSING_TIMEOUT_SECONDS })
        .resize(64, 64, { fit: 'inside' })
        .raw()
        .toBuffer(),
    );
  } catch {
    throw invalid(`The ${format.toUpperCase()} image is truncated or corrupt and cannot be decoded`);
  }
  return { format, width, height };
}

/**
 * Downsizes an image (already checked by `inspectImage`) to fit inside `max` x `max`, keeping its
 * aspect ratio, format and metadata (orientation, colour profile). Smaller images come back as the
 * very same bytes.
 */
export async function fitWithin(bytes: Buffer, max: number, opts: { maxPixels?: number } = {}): Promise<FittedImage> {
  const info = await inspectImage(bytes, opts);
  const original = { originalWidth: info.width, originalHeight: info.height };
  if (info.width <= max && info.height <= max) return { ...info, ...original, bytes, resized: false };
  const pipeline = sharp(bytes, { limitInputPixels: opts.maxPixels ?? DEFAULT_MAX_INPUT_PIXELS, failOn: 'truncated', sequentialRead: true })
    .timeout({ seconds: PROCESSING_TIMEOUT_SECONDS })
    .resize(max, max, { fit: 'inside', withoutEnlargement: true })
    .keepMetadata();
  const encoded = info.format === 'jpeg' ? pipeline.jpeg({ quality: 95 }) : pipeline.png({ compressionLevel: 6 });
  let out: { data: Buffer; info: OutputInfo };
  try {
    out = await withDecodeSlot(() => encoded.toBuffer({ resolveWithObject: true }));
  } catch {
    throw invalid(`The ${info.format.toUpperCase()} image could not be downsized; it is corrupt`);
  }
  return { format: info.format, width: out.info.width, height: out.info.height, bytes: out.data, resized: true, ...original };
}

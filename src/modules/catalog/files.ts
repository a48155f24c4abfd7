import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { badRequest } from '../../platform/errors.ts';
import type { BlobStore } from '../../platform/storage.ts';

/** A catalog file decoded and checked, ready to be stored under its content hash. */
export interface PreparedFile {
  bytes: Buffer;
  format: 'png' | 'jpeg' | 'webp';
  contentType: string;
  ext: string;
  sha256: string;
  size: number;
  width: number;
  height: number;
  blobKey: string;
}

export type FileSource =
  | { base64: string }
  /** The product's own picture in that view (resolved by `placeFiles`, which knows the product). */
  | { picture: { view: string } }
  /** Bytes already at hand (internal). */
  | { bytes: Buffer }
  | { generate: { width: number; height: number; background?: string; text?: string; format?: 'png' | 'jpeg' } };

const FORMATS = {
  png: { contentType: 'image/png', ext: 'png' },
  jpeg: { contentType: 'image/jpeg', ext: 'jpg' },
  webp: { contentType: 'image/webp', ext: 'webp' },
} as const;
const MAX_FILE_BYTES = 25 * 1024 * 1024;
const MAX_PIXELS = 60_000_000;
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** Drawing is deterministic and the demo seed re-applies the same pictures on every run. */
const drawn = new Map<string, Buffer>();

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Demo and placeholder images: a filled canvas with an optional caption, drawn by sharp. */
async function draw(
  g: Extract<FileSource, { generate: unknown }>['generate'],
  format: 'png' | 'jpeg',
): Promise<Buffer> {
  let img = sharp({ create: { width: g.width, height: g.height, channels: 3, background: g.background ?? '#dddddd' } });
  if (g.text) {
    const size = Math.max(8, Math.round(Math.min(g.width, g.height) / 10));
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${g.width}" height="${g.height}"><text x="50%" y="50%" font-family="sans-serif" font-size="${size}" fill="#222" text-anchor="middle" dominant-baseline="middle">${escapeXml(g.text)}</text></svg>`;
    img = img.composite([{ input: Buffer.from(svg) }]);
  }
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 85 }).toBuffer();
}

/**
 * Turns an inline file into checked image bytes. `where` names the field in error messages;
 * `wanted` is the format a file name's extension promises, when there is one.
 */
export async function prepareFile(
  src: FileSource,
  where: string,
  wanted?: 'png' | 'jpeg' | 'webp',
): Promise<PreparedFile> {
  let bytes: Buffer;
  if ('generate' in src) {
    const fmt = src.generate.format ?? (wanted === 'jpeg' ? 'jpeg' : 'png');
    const key = JSON.stringify([src.generate, fmt]);
    bytes = drawn.get(key) ?? (await draw(src.generate, fmt));
    if (!drawn.has(key) && drawn.size < 500 && bytes.length < 256 * 1024) drawn.set(key, bytes);
  } else if ('picture' in src) {
    throw badRequest(`${where}.picture: only a product's own files can be its picture`);
  } else if ('bytes' in src) {
    bytes = src.bytes;
  } else {
    if (!BASE64.test(src.base64)) throw badRequest(`${where}.base64 is not valid base64`);
    bytes = Buffer.from(src.base64, 'base64');
    if (bytes.length === 0) throw badRequest(`${where}.base64 is empty`);
  }
  if (bytes.length > MAX_FILE_BYTES) throw badRequest(`${where} is larger than ${MAX_FILE_BYTES} bytes`);
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS }).metadata();
  } catch {
    throw badRequest(`${where} is not a PNG, JPEG or WebP image`, 'invalid_image');
  }
  const format = meta.format as string;
  if (format !== 'png' && format !== 'jpeg' && format !== 'webp')
    throw badRequest(`${where} is ${format}, not a PNG, JPEG or WebP image`, 'invalid_image');
  if (!meta.width || !meta.height || meta.width * meta.height > MAX_PIXELS)
    throw badRequest(`${where} has more than ${MAX_PIXELS} pixels`, 'invalid_image');
  if (wanted && wanted !== format)
    throw badRequest(`${where} is a ${format} image but its name says ${wanted}`, 'invalid_image');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const { contentType, ext } = FORMATS[format];
  return {
    bytes,
    format,
    contentType,
    ext,
    sha256,
    size: bytes.length,
    width: meta.width,
    height: meta.height,
    blobKey: `catalog/${sha256}.${ext}`,
  };
}

/** The format a media file name promises by its extension. */
export function formatOfName(name: string): 'png' | 'jpeg' | 'webp' {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return ext === 'png' ? 'png' : ext === 'webp' ? 'webp' : 'jpeg';
}

/** Content-addressed keys: storing the same bytes twice is harmless, so this runs before the transaction. */
export async function storeFiles(blobs: BlobStore, files: PreparedFile[]): Promise<void> {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.blobKey)) continue;
    seen.add(f.blobKey);
    await blobs.put(f.blobKey, f.bytes);
  }
}

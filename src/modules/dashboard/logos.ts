import sharp from 'sharp';
import { ApiError, badRequest } from '../../platform/errors.ts';
import { fitWithin } from '../../platform/images.ts';
import { randomId } from '../../platform/ids.ts';
import type { BlobStore } from '../../platform/storage.ts';

/** Logos are public (tracking pages, labels) under unguessable names. */
export const LOGO_PREFIX = '/brand-logos/';
export const LOGO_MAX_BYTES = 2 * 1024 * 1024;
/** A logo is shown at most 512 px wide: larger sources are refused from their header. */
const LOGO_MAX_PIXELS = 25_000_000;
const FILE = /^[0-9a-hjkmnp-tv-z]{26}\.png$/;

/**
 * Decodes the upload and writes it again as a PNG of at most 512 px: whatever the file carried
 * besides pixels (scripts in SVG, metadata) does not survive, and the tracking page stays light.
 */
export async function storeLogo(blobs: BlobStore, publicBaseUrl: string, data: Buffer): Promise<string> {
  if (data.length > LOGO_MAX_BYTES) throw badRequest('The logo must be at most 2 MB', 'logo_too_large');
  let png: Buffer;
  try {
    // The bounded path of /v2/images: format sniffed, pixels counted from the header, one decode
    // slot, a time-out. A 1 MB file claiming 16383x16383 pixels is refused before any decode.
    const fitted = await fitWithin(data, 512, { maxPixels: LOGO_MAX_PIXELS });
    png = await sharp(fitted.bytes).png().toBuffer();
  } catch (err) {
    const why = err instanceof ApiError ? `: ${err.message}` : '';
    throw badRequest(`The logo must be a PNG or JPEG image of at most 25 megapixels${why}`, 'logo_not_an_image');
  }
  const name = `${randomId()}.png`;
  await blobs.put(`brand-logos/${name}`, png);
  return `${publicBaseUrl}${LOGO_PREFIX}${name}`;
}

export async function logoFile(blobs: BlobStore, file: string): Promise<{ data: Buffer; contentType: string } | null> {
  if (!FILE.test(file)) return null;
  const data = await blobs.get(`brand-logos/${file}`);
  return data ? { data, contentType: 'image/png' } : null;
}

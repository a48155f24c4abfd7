import sharp from 'sharp';
import { badRequest } from '../../platform/errors.ts';
import { randomId } from '../../platform/ids.ts';
import type { BlobStore } from '../../platform/storage.ts';

/** Logos are public (tracking pages, labels) under unguessable names. */
export const LOGO_PREFIX = '/brand-logos/';
export const LOGO_MAX_BYTES = 2 * 1024 * 1024;
const FILE = /^[0-9a-hjkmnp-tv-z]{26}\.png$/;

/**
 * Decodes the upload and writes it again as a PNG of at most 512 px: whatever the file carried
 * besides pixels (scripts in SVG, metadata) does not survive, and the tracking page stays light.
 */
export async function storeLogo(blobs: BlobStore, publicBaseUrl: string, data: Buffer): Promise<string> {
  if (data.length > LOGO_MAX_BYTES) throw badRequest('The logo must be at most 2 MB', 'logo_too_large');
  let png: Buffer;
  try {
    const meta = await sharp(data).metadata();
    if (!meta.format || !['png', 'jpeg', 'webp', 'gif'].includes(meta.format)) throw new Error('format');
    png = await sharp(data)
      .resize({ width: 512, height: 512, fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer();
  } catch {
    throw badRequest('The logo must be a PNG, JPEG, WebP or GIF image', 'logo_not_an_image');
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

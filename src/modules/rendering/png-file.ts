import type { Sharp } from 'sharp';
import type { BlobStore } from '../../platform/storage.ts';

/**
 * Encodes a picture by libvips straight into the blob store's file: the encoded picture is never a
 * buffer on the main heap, where a 2000 px drawing's PNGs (5-10 MB each) would stay until the
 * heap's next full collection.
 */
export function putEncoded(blobs: BlobStore, key: string, img: Sharp): Promise<void> {
  return blobs.putWritten(key, (path) => img.toFile(path));
}

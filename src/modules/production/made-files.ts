import { createHash } from 'node:crypto';
import type { BlobStore } from '../../platform/storage.ts';

/** A problem retrying cannot fix (no print spec, the artwork gone): the file is marked failed at once. */
export class FileProblem extends Error {}

/** Stores a made PDF under a key that names its content, so a file made again never overwrites. */
export async function storePdf(
  blobs: BlobStore,
  prefix: string,
  pdf: Buffer,
): Promise<{ blobKey: string; size: number }> {
  const blobKey = `${prefix}-${createHash('sha256').update(pdf).digest('hex').slice(0, 16)}.pdf`;
  await blobs.put(blobKey, pdf);
  return { blobKey, size: pdf.length };
}

/** A file made again replaces the old one: its blob goes once the row points at the new one. */
export async function dropReplaced(blobs: BlobStore, old: string | null, now: string): Promise<void> {
  if (old && old !== now) await blobs.delete(old);
}

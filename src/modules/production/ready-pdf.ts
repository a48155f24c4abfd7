import { conflict, mustFind } from '../../platform/errors.ts';
import type { BlobStore } from '../../platform/storage.ts';

/** A made file's bytes for download; one not made yet (or failed) answers 409 with its status. */
export async function readyPdf(
  blobs: BlobStore,
  row: { status: string; blob_key: string | null; error: string | null } | null,
  what: string,
): Promise<Buffer> {
  const found = mustFind(row, what);
  if (found.status !== 'ready' || !found.blob_key)
    throw conflict(
      'production_file_not_ready',
      `The ${what.toLowerCase()} is ${found.status}${found.error ? `: ${found.error}` : '; try again in a moment'}`,
    );
  const bytes = await blobs.get(found.blob_key);
  if (!bytes) throw new Error(`blob ${found.blob_key} is missing`);
  return bytes;
}

import { ReadCache } from '../../platform/cache.ts';
import type { Executor } from '../../platform/db/index.ts';
import { mustFind } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { UploadedFile } from '../../platform/http/upload-file.ts';
import { fitFileWithin, type ImageFormat } from '../../platform/images.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import type { ImagesDeps } from './deps.ts';
import { type ImageRow, imagesRepo as repo } from './repo.ts';

/** Spec: images larger than this (either side) are downsized automatically. */
export const MAX_IMAGE_SIDE = 7000;

/** What other modules (orders, rendering) need to know about a partner image. */
export interface ImageHandle {
  reference: string;
  width: number;
  height: number;
  format: ImageFormat;
  blobKey: string;
}

function toImage(r: ImageRow) {
  return {
    reference: r.id,
    width: r.width,
    height: r.height,
    format: r.format,
    size: r.size,
    created: r.created_at.toISOString(),
    ...(r.original_width !== null && r.original_height !== null
      ? { originalWidth: r.original_width, originalHeight: r.original_height }
      : {}),
  };
}

const handleOf = (r: ImageRow): ImageHandle => ({
  reference: r.id,
  width: r.width,
  height: r.height,
  format: r.format,
  blobKey: r.blob_key,
});

export function imagesService(deps: ImagesDeps) {
  const { db, clock, cursors, blobs } = deps;

  const handles = new ReadCache<ImageHandle>({ maxEntries: 50_000, maxAgeMs: Number.POSITIVE_INFINITY });

  async function row(orgId: string, ref: string, ex: Executor = db): Promise<ImageRow | null> {
    return isReference('Image', ref) ? repo.byId(ex, orgId, ref) : null;
  }

  return {
    /**
     * Stores an upload once per organization and content (sha256 of the uploaded bytes): repeats,
     * also concurrent ones, get the first reference. The blob key is content-addressed, so writing
     * it before the row is harmless when another request wins the insert. The body is a file with
     * the digest computed while it arrived; the downsized copy is written beside it and moved (or
     * streamed) into the blob store, so neither is ever whole in memory.
     */
    async upload(orgId: string, body: UploadedFile) {
      const { sha256 } = body;
      const known = await repo.bySha(db, orgId, sha256);
      if (known) return toImage(known);

      const fitted = await fitFileWithin(body, MAX_IMAGE_SIDE, body.derivedPath('fitted'));
      const blobKey = `images/${orgId}/${sha256}.${fitted.format === 'jpeg' ? 'jpg' : 'png'}`;
      await blobs.putFile(blobKey, fitted.path);
      const stored = await db.tx(async (tx) => {
        await repo.insertIfAbsent(tx, {
          id: newReference('Image'),
          organization_id: orgId,
          sha256,
          format: fitted.format,
          width: fitted.width,
          height: fitted.height,
          size: fitted.size,
          original_width: fitted.resized ? fitted.originalWidth : null,
          original_height: fitted.resized ? fitted.originalHeight : null,
          blob_key: blobKey,
          created_at: clock.now(),
        });
        return repo.bySha(tx, orgId, sha256);
      });
      return toImage(stored!);
    },

    async list(orgId: string, page: PageRequest) {
      return listPage(cursors, page, { plural: 'images', load: (ks) => repo.page(db, orgId, ks), item: toImage });
    },

    async image(orgId: string, ref: string) {
      const r = mustFind(await row(orgId, ref), 'Image', ref);
      return toImage(r);
    },

    /**
     * For orders and renders: null when the reference is malformed, unknown or another
     * organization's. Inside a transaction pass its executor (PGlite has a single connection).
     */
    async imageForOrganization(orgId: string, ref: string, ex?: Executor): Promise<ImageHandle | null> {
      // Images are never changed or deleted, so a committed one (read outside a transaction) can be
      // remembered for good; every order line with artwork names one.
      const key = `${orgId}/${ref}`;
      const load = async () => {
        const r = await row(orgId, ref, ex);
        return r ? handleOf(r) : null;
      };
      return ex ? load() : handles.getOne(key, load);
    },

    /** The same for several references in one query (an order's lines): absent ones are left out. */
    async imagesForOrganization(orgId: string, refs: string[]): Promise<Map<string, ImageHandle>> {
      const ids = [...new Set(refs.filter((r) => isReference('Image', r)))];
      if (ids.length === 0) return new Map();
      const found = await handles.getMany(
        ids.map((id) => `${orgId}/${id}`),
        async (missing) => {
          const rows = await repo.byIds(
            db,
            orgId,
            missing.map((k) => k.slice(orgId.length + 1)),
          );
          return new Map(rows.map((r) => [`${orgId}/${r.id}`, handleOf(r)]));
        },
      );
      return new Map([...found].map(([k, v]) => [k.slice(orgId.length + 1), v]));
    },

    /** The stored (possibly downsized) bytes of an image, by the `blobKey` of its handle. */
    readImage(blobKey: string): Promise<Buffer | null> {
      return blobs.get(blobKey);
    },
  };
}

export type ImagesService = ReturnType<typeof imagesService>;

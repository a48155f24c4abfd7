import type { CatalogDeps } from './deps.ts';
import type { MediaRow, ProductView } from './repo.ts';
import { catalogReads as reads } from './repo.ts';
import { subjectOf } from './product-views.ts';
import { pictureSpecs } from './pictures/index.ts';
import { pictureStore } from './pictures/store.ts';

/** One of a product's pictures, drawn from its geometry and material (`productPictures`). */
export interface ProductPicture {
  view: string;
  filename: string;
  contentType: string;
  width: number;
  height: number;
  bytes: Buffer;
}

/**
 * A product's drawn pictures as media files beside the ones stored for it: the detail lists them,
 * the media route serves them, the picture makers take their bytes.
 */
export function productPictureFiles(deps: Pick<CatalogDeps, 'db' | 'blobs' | 'clock'>) {
  const { db } = deps;
  const pictures = pictureStore(deps);
  /**
   * The product's pictures as media records, drawn now if they are not yet. Listed after the
   * product's own media files; a file of the same name replaces the drawn picture.
   */
  async function pictureMedia(p: ProductView, files: MediaRow[]): Promise<MediaRow[]> {
    const subject = subjectOf(p);
    if (!subject) return [];
    const taken = new Set(files.map((f) => f.filename));
    return (await pictures.pictures(subject))
      .filter((x) => !taken.has(x.filename))
      .map((x, i) => ({
        product_id: p.id,
        filename: x.filename,
        name: x.filename,
        kind: 'example_image' as const,
        position: 1000 + i,
        content_type: x.row.content_type,
        blob_key: x.row.blob_key,
        sha256: x.row.sha256,
        size: x.row.size,
        width: x.row.width,
        height: x.row.height,
        modified_at: x.row.created_at,
      }));
  }
  /** A stored media file or a drawn picture of the product, null when it has no file of that name. */
  async function fileOf(p: ProductView, filename: string): Promise<MediaRow | null> {
    const stored = await reads.mediaFile(db, p.id, filename);
    if (stored) return stored;
    const subject = subjectOf(p);
    if (!subject || !pictureSpecs(subject).some((x) => x.filename === filename)) return null;
    return (await pictureMedia(p, [])).find((m) => m.filename === filename) ?? null;
  }
  /** The pictures of a product with their bytes; empty when it has none. */
  async function picturesOf(p: ProductView): Promise<ProductPicture[]> {
    const subject = subjectOf(p);
    if (!subject) return [];
    const out: ProductPicture[] = [];
    for (const x of await pictures.pictures(subject)) {
      const bytes = await deps.blobs.get(x.row.blob_key);
      if (bytes)
        out.push({
          view: x.view,
          filename: x.filename,
          contentType: x.contentType,
          width: x.width,
          height: x.height,
          bytes,
        });
    }
    return out;
  }
  return { pictureMedia, fileOf, picturesOf };
}

import type { CatalogDeps } from './deps.ts';
import type { MediaRow, PictureRow, ProductView } from './repo.ts';
import { catalogReads as reads } from './repo.ts';
import { subjectOf } from './product-views.ts';
import { type PictureSpec, pictureSpecs } from './pictures/index.ts';
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
 * The picture a list shows for a product, by file name: its first stored example image or render
 * (`stored`, first by kind and position), else the first of its drawn pictures, which the media
 * route draws when it is asked for (`drawn`). Null when it has neither.
 */
export interface ListPicture {
  filename: string;
  drawn: boolean;
}

/** The list picture of a product; `stored` is the file name of its first stored example, if any. */
export function listPicture(p: ProductView, stored: string | null): ListPicture | null {
  if (stored) return { filename: stored, drawn: false };
  const subject = subjectOf(p);
  const first = subject && pictureSpecs(subject)[0];
  return first ? { filename: first.filename, drawn: true } : null;
}

/** A drawn picture as the product's media record; listed after its own files, in view order. */
const pictureRecord = (p: ProductView, spec: PictureSpec, index: number, row: PictureRow): MediaRow => ({
  product_id: p.id,
  filename: spec.filename,
  name: spec.filename,
  kind: 'example_image',
  position: 1000 + index,
  content_type: row.content_type,
  blob_key: row.blob_key,
  sha256: row.sha256,
  size: row.size,
  width: row.width,
  height: row.height,
  modified_at: row.created_at,
});

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
      .map((x, i) => pictureRecord(p, x, i, x.row))
      .filter((m) => !taken.has(m.filename));
  }
  /**
   * A stored media file or a drawn picture of the product, null when it has no file of that name.
   * Only the picture asked for is drawn: a list's thumbnail costs one drawing, not the product's all.
   */
  async function fileOf(p: ProductView, filename: string): Promise<MediaRow | null> {
    const stored = await reads.mediaFile(db, p.id, filename);
    if (stored) return stored;
    const subject = subjectOf(p);
    const specs = subject ? pictureSpecs(subject) : [];
    const index = specs.findIndex((x) => x.filename === filename);
    if (!subject || index < 0) return null;
    return pictureRecord(p, specs[index], index, await pictures.picture(subject, specs[index]));
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

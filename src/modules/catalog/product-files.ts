import type { Executor } from '../../platform/db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import { catalogWrites as w } from './admin-repo.ts';
import { type FileSource, type PreparedFile, formatOfName, prepareFile } from './files.ts';

export interface PlacedFile {
  kind: 'layer' | 'example_image' | 'example_render';
  name: string;
  filename: string;
  file: PreparedFile;
}
export interface ProductFiles {
  layers?: PlacedFile[];
  media?: PlacedFile[];
}
/** Draws one view of the product in a format; null: it has no pictures or no such view. */
export type PictureOf = (view: string, format: 'png' | 'jpeg' | 'webp') => Promise<Buffer | null>;

/**
 * Decodes a product's layer and media files and gives each its public file name. `picture` draws
 * the product's own picture for a `{picture: {view}}` file.
 */
export async function placeFiles(
  input: {
    layers?: Array<{ name: string; file: FileSource }>;
    media?: Array<{ name: string; kind: 'example_image' | 'example_render'; file: FileSource }>;
  },
  where: string,
  picture: PictureOf = async () => null,
): Promise<ProductFiles> {
  const prepare = async (src: FileSource, field: string, wanted?: 'png' | 'jpeg' | 'webp') => {
    if (!('picture' in src)) return prepareFile(src, field, wanted);
    const bytes = await picture(src.picture.view, wanted ?? 'png');
    if (!bytes)
      throw badRequest(
        `${field}.picture.view ${src.picture.view} is not a picture of this product (a case has back, angle and side; an accessory front, angle and side; a product without device, case type or look has none)`,
      );
    return prepareFile({ bytes }, field, wanted);
  };
  const out: ProductFiles = {};
  const names = new Set<string>();
  const claim = (filename: string, field: string) => {
    if (names.has(filename)) throw badRequest(`${field} gives a second file named ${filename}`);
    names.add(filename);
  };
  if (input.layers) {
    out.layers = [];
    for (const [i, l] of input.layers.entries()) {
      const file = await prepare(l.file, `${where}.layers[${i}].file`);
      const filename = `layer-${l.name}.${file.ext}`;
      claim(filename, `${where}.layers[${i}]`);
      out.layers.push({ kind: 'layer', name: l.name, filename, file });
    }
  }
  if (input.media) {
    out.media = [];
    for (const [i, m] of input.media.entries()) {
      const field = `${where}.media[${i}]`;
      if (m.name.startsWith('layer-'))
        throw badRequest(`${field}.name must not start with "layer-" (reserved for layer images)`);
      const file = await prepare(m.file, `${field}.file`, formatOfName(m.name));
      // A render's URL is cached as immutable, so a replaced render must get a new name.
      const dot = m.name.lastIndexOf('.');
      const filename =
        m.kind === 'example_render'
          ? `${m.name.slice(0, dot)}-${file.sha256.slice(0, 12)}${m.name.slice(dot)}`
          : m.name;
      claim(filename, field);
      out.media.push({ kind: m.kind, name: m.name, filename, file });
    }
  }
  return out;
}

export const allFiles = (f: ProductFiles) => [...(f.layers ?? []), ...(f.media ?? [])].map((x) => x.file);

/** Brings a product's files of some kinds to exactly `wanted`; unchanged files keep their dates. */
export async function syncFiles(
  tx: Executor,
  productId: string,
  kinds: string[],
  wanted: PlacedFile[],
  at: Date,
): Promise<boolean> {
  const current = await w.mediaOfKind(tx, productId, kinds);
  const same = (c: (typeof current)[number], m: PlacedFile) =>
    c.kind === m.kind && c.name === m.name && c.sha256 === m.file.sha256 && c.filename === m.filename;
  let changed = false;
  for (const c of current) {
    if (!wanted.some((m) => same(c, m))) {
      await w.deleteMedia(tx, productId, c.filename);
      changed = true;
    }
  }
  for (const [position, m] of wanted.entries()) {
    const c = current.find((x) => same(x, m));
    if (!c) {
      const f = m.file;
      await w.insertMedia(tx, {
        product_id: productId,
        filename: m.filename,
        name: m.name,
        kind: m.kind,
        position,
        content_type: f.contentType,
        blob_key: f.blobKey,
        sha256: f.sha256,
        size: f.size,
        width: f.width,
        height: f.height,
        modified_at: at,
      });
      changed = true;
    } else if (c.position !== position) {
      await w.setMediaPosition(tx, productId, c.filename, position);
      changed = true;
    }
  }
  return changed;
}

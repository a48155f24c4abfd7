import { mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import { catalogAdmin } from './admin.ts';
import { catalogLists } from './catalog-lists.ts';
import { catalogLookups } from './catalog-lookups.ts';
import type { CatalogDeps } from './deps.ts';
import type { ProductChange, ProductChangeListener } from './events.ts';
import { operatorSearch } from './operator-search.ts';
import { productCache } from './product-cache.ts';
import { type ListPicture, type ProductPicture, listPicture, productPictureFiles } from './product-pictures.ts';
import { type OrderableProduct, productViews, toOrderable } from './product-views.ts';
import { type MediaRow, catalogReads as reads } from './repo.ts';
import { stockMovements } from './stock.ts';

export { PRODUCT_CHANGED_JOB, type ProductChange, type ProductChangeListener } from './events.ts';
export type { ProductShape } from './catalog-lookups.ts';
export type { CatalogFacets, CatalogFilter, CatalogHit, ProductDrawing } from './operator-search.ts';
export type { ListPicture, ProductPicture } from './product-pictures.ts';
export { type OrderableProduct, toOrderable, toPackaging, toProductgroup } from './product-views.ts';

export type CatalogService = ReturnType<typeof catalogService>;

/** A product's media file as the routes and the dashboard send it: the blob and what its headers say. */
export interface MediaFile {
  kind: MediaRow['kind'];
  contentType: string;
  blobKey: string;
  sha256: string;
  modifiedAt: Date;
}

/** A product as a list shows it (`productCards`); `drawing`: a drawing of its device exists (picture.svg). */
export interface ProductCard {
  reference: string;
  name: string;
  price: number;
  picture: ListPicture | null;
  drawing: boolean;
}

const mediaFileOf = (m: MediaRow): MediaFile => ({
  kind: m.kind,
  contentType: m.content_type,
  blobKey: m.blob_key,
  sha256: m.sha256,
  modifiedAt: m.modified_at,
});

/**
 * The catalog: the partner's reads (use cases in catalog-lists.ts and product-cache.ts), other
 * modules' lookups (catalog-lookups.ts), stock (stock.ts) and the operator's changes (admin.ts).
 */
export function catalogService(deps: CatalogDeps) {
  const { db } = deps;
  const listeners: ProductChangeListener[] = [];
  const views = productViews(deps.config.publicBaseUrl);
  const files = productPictureFiles(deps);
  const cache = productCache(deps, views, files);
  const lookups = catalogLookups(deps, cache);
  const admin = catalogAdmin({
    ...deps,
    detail: async (id: string, view) => cache.detailWithPictures(view, await reads.media(db, id)),
  });
  const { visibleRow, ...forModules } = lookups;
  const anyProduct = async (ref: string) =>
    (isReference('Product', ref) ? await reads.productsWithMedia(db, [ref]) : [])[0]?.product ?? null;

  return {
    ...stockMovements(deps),
    ...catalogLists(deps, views),
    /** Archived products leave the list but still answer here. */
    product: (orgId: string, ref: string) => cache.productDetail(orgId, ref, false),
    /**
     * The product's data as the list shows it (name, SKU, print spec), or null when the organization
     * cannot see it. Nothing is drawn: a print file or a packing slip needs the product, not its
     * pictures. `availableQuantity` is the cached view's, which may be older than the last order.
     */
    findProductData: async (orgId: string, ref: string) => {
      const [found] = await cache.visibleProducts(orgId, [ref]);
      return found ? views.toListItem(found.view) : null;
    },
    /**
     * Read past the cache: the change job may run on a node that has not yet heard of the change
     * it reports.
     */
    freshProduct: (orgId: string, ref: string) => cache.productDetail(orgId, ref, true),
    /**
     * The visible ones among `refs` as a list shows them, keyed by reference: name, price and the
     * picture to show, with nothing drawn (a drawn picture is drawn when its URL is asked for).
     */
    async productCards(orgId: string, refs: string[]): Promise<Map<string, ProductCard>> {
      const found = await cache.visibleProducts(orgId, refs);
      return new Map(
        found.map(({ view, media }) => [
          view.id,
          {
            reference: view.id,
            name: view.name,
            price: view.price_cents,
            picture: listPicture(view, media.find((m) => m.kind !== 'layer')?.filename ?? null),
            drawing: view.device_geometry !== null,
          },
        ]),
      );
    },
    /** A media file's record; the caller streams `blob_key` from the blob store. */
    async mediaFile(orgId: string, ref: string, filename: string): Promise<MediaFile> {
      const row = await visibleRow(orgId, ref);
      return mediaFileOf(mustFind(await files.fileOf(row, filename), 'Media file', `${ref}/${filename}`));
    },
    /** The operator's form of `mediaFile`: any product's file, null when there is none. */
    async anyMediaFile(productId: string, filename: string): Promise<MediaFile | null> {
      const found = await anyProduct(productId);
      const m = found ? await files.fileOf(found, filename) : null;
      return m && mediaFileOf(m);
    },
    /**
     * A product's pictures with their bytes (back, three-quarter and side view of a case; front,
     * angle and side of an accessory), drawn now if they are not yet; empty for a product without
     * pictures or an unknown reference. For the picture makers (the mockups' contact sheet).
     */
    async productPictures(ref: string): Promise<ProductPicture[]> {
      const found = await anyProduct(ref);
      return found ? files.picturesOf(found) : [];
    },

    // ---- for other modules ----
    ...forModules,
    async visibleProduct(orgId: string, ref: string): Promise<OrderableProduct> {
      return toOrderable(await visibleRow(orgId, ref));
    },
    /**
     * Called by the `catalog.product_changed` job after a status change or a stock change across
     * zero committed. A failing listener makes the job retry, so listeners must be idempotent.
     */
    onProductChanged(listener: ProductChangeListener): void {
      listeners.push(listener);
    },
    async dispatchProductChange(change: ProductChange): Promise<void> {
      for (const l of listeners) await l(change);
    },

    // ---- operator ----
    ...admin,
    ...operatorSearch(db),
  };
}

import { ReadCache } from '../../platform/cache.ts';
import { mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { CatalogDeps } from './deps.ts';
import { CATALOG_TOPIC, STOCK_TOPIC } from './events.ts';
import type { productPictureFiles } from './product-pictures.ts';
import type { ProductDetail, productViews } from './product-views.ts';
import { type MediaRow, type ProductView, catalogReads as reads, isVisibleTo } from './repo.ts';

type Cached = { view: ProductView; detail: ProductDetail; media: MediaRow[]; full?: Promise<ProductDetail> };

/**
 * Products are read on every product page and every order, and change a few times a day: each
 * process keeps them, with the response body made once, until any catalog change (admin-context.ts
 * announces every committed write). The detail with pictures is made on first ask (drawing them
 * may take a moment), then kept.
 */
export function productCache(
  deps: Pick<CatalogDeps, 'db' | 'changes'>,
  views: ReturnType<typeof productViews>,
  files: ReturnType<typeof productPictureFiles>,
) {
  const { db } = deps;
  const detailWithPictures = async (p: ProductView, media: MediaRow[]) =>
    views.toDetail(p, [...media, ...(await files.pictureMedia(p, media))]);
  const full = (c: Cached) => {
    if (!c.full) {
      c.full = detailWithPictures(c.view, c.media);
      // A failed drawing is tried again next time, not remembered.
      c.full.catch(() => {
        c.full = undefined;
      });
    }
    return c.full;
  };
  const cache = new ReadCache<Cached>({ maxEntries: 20_000, maxAgeMs: 60_000 });
  // Stock figures by item, apart from the views: an order drops these, not the views.
  const stockFigures = new ReadCache<number>({ maxEntries: 20_000, maxAgeMs: 60_000 });
  deps.changes.on(CATALOG_TOPIC, () => {
    cache.clear();
    stockFigures.clear();
  });
  deps.changes.on(STOCK_TOPIC, () => stockFigures.clear());
  const loadProducts = async (ids: string[]) =>
    new Map(
      (await reads.productsWithMedia(db, ids)).map((p): [string, Cached] => [
        p.product.id,
        { view: p.product, detail: views.toDetail(p.product, p.media), media: p.media },
      ]),
    );
  /** The visible ones among `refs`; `fresh` reads past the cache. */
  async function visibleProducts(orgId: string, refs: string[], fresh = false): Promise<Cached[]> {
    const ids = [...new Set(refs.filter((r) => isReference('Product', r)))];
    if (ids.length === 0) return [];
    const found = fresh ? await loadProducts(ids) : await cache.getMany(ids, loadProducts);
    return [...found.values()].filter((c) => isVisibleTo(orgId, c.view));
  }
  /** The detail with its live stock: the cached view's figure may be older than the last order. */
  async function withStock(c: Cached, fresh: boolean) {
    const [detail, quantity] = await Promise.all([
      full(c),
      fresh
        ? c.view.logical_quantity
        : stockFigures.getOne(c.view.item_id, () => reads.itemQuantity(db, c.view.item_id)),
    ]);
    return { ...detail, availableQuantity: Math.max(0, quantity ?? c.view.logical_quantity) };
  }
  async function productDetail(orgId: string, ref: string, fresh: boolean) {
    const [found] = await visibleProducts(orgId, [ref], fresh);
    return withStock(mustFind(found, 'Product', ref), fresh);
  }
  return { detailWithPictures, visibleProducts, withStock, productDetail };
}

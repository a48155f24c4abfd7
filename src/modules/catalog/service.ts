import { inColourway } from './look.ts';
import { ReadCache } from '../../platform/cache.ts';
import { mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference } from '../../platform/ids.ts';
import { catalogAdmin } from './admin.ts';
import type { CatalogDeps } from './deps.ts';
import { CATALOG_TOPIC, STOCK_TOPIC, type ProductChange, type ProductChangeListener } from './events.ts';
import {
  type ItemRow,
  type MediaRow,
  type PackagingRow,
  type ProductgroupRow,
  type ProductView,
  catalogReads as reads,
  catalogWrites,
  isVisibleTo,
} from './repo.ts';
import { CASE_TYPES, type CaseType, isCaseType } from './casetypes.ts';
import type { DeviceGeometry } from './devices.ts';
import { pictureSpecs, pictureSubject } from './pictures/index.ts';
import { pictureStore } from './pictures/store.ts';
import { stockMovements } from './stock.ts';

/** A product's device and case type (null when it has none). */
export interface ProductShape {
  device: DeviceGeometry | null;
  caseType: CaseType | null;
  /** The case's colourway (`look.colour`), or null. */
  colour: { name: string; hex: string } | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What other modules (orders, rendering, webhooks) get to know about a product. */
export interface OrderableProduct {
  reference: string;
  name: string;
  /** The product's own SKU (its legacyItemSKU), as invoices name it. */
  sku: string;
  status: string;
  printable: boolean;
  priceCents: number;
  weightGrams: number;
  productgroupReference: string;
}

export { PRODUCT_CHANGED_JOB, type ProductChange, type ProductChangeListener } from './events.ts';

export const toOrderable = (p: ProductView): OrderableProduct => ({
  reference: p.id,
  name: p.name,
  sku: p.legacy_item_sku,
  status: p.status,
  printable: p.printable,
  priceCents: p.price_cents,
  weightGrams: p.weight_grams,
  productgroupReference: p.productgroup_id,
});

export const toProductgroup = (g: ProductgroupRow) => ({
  reference: g.id,
  name: g.name,
  private: g.private_organization_id !== null,
  price: g.price_cents,
});
export const toPackaging = (p: PackagingRow) => ({
  reference: p.id,
  name: p.name,
  private: p.private_organization_id !== null,
});

export type CatalogService = ReturnType<typeof catalogService>;
/** A product media file's record as other modules get it (the dashboard streams `blob_key`). */
export type MediaRecord = MediaRow;

/** One of a product's pictures, drawn from its geometry and material (`productPictures`). */
export interface ProductPicture {
  view: string;
  filename: string;
  contentType: string;
  width: number;
  height: number;
  bytes: Buffer;
}

/** What a product's pictures show, from its row (null: it has none). */
const subjectOf = (p: ProductView) =>
  pictureSubject({
    device: p.device_geometry,
    caseType: isCaseType(p.case_type) ? CASE_TYPES[p.case_type] : null,
    look: p.look,
  });

export function catalogService(deps: CatalogDeps) {
  const { db, cursors } = deps;
  const listeners: ProductChangeListener[] = [];
  const mediaUrl = (productId: string, filename: string) =>
    `${deps.config.publicBaseUrl}/v2/products/${productId}/media/${encodeURIComponent(filename)}`;

  const toListItem = (p: ProductView) => ({
    reference: p.id,
    legacyItemSKU: p.legacy_item_sku,
    name: p.name,
    status: p.status,
    availableQuantity: Math.max(0, p.logical_quantity),
    layersModified: iso(p.layers_modified),
    printModified: iso(p.print_modified),
    printable: p.printable,
    productgroupReference: p.productgroup_id,
    price: p.price_cents,
    weightGrams: p.weight_grams,
    print: p.print_spec ? { modified: (p.print_modified ?? p.created_at).toISOString(), ...p.print_spec } : null,
    created: p.created_at.toISOString(),
  });

  /** Extension field of the detail: the case's colourway (shell or leather), imported with the catalog. */
  const colourOf = (p: ProductView) => p.look?.colour ?? null;

  const toDetail = (p: ProductView, media: MediaRow[]) => ({
    ...toListItem(p),
    colour: colourOf(p),
    layers: {
      modified: iso(p.layers_modified),
      images: media
        .filter((m) => m.kind === 'layer')
        .map((m) => ({ name: m.name, url: mediaUrl(p.id, m.filename), modified: m.modified_at.toISOString() })),
    },
    media: media
      .filter((m) => m.kind !== 'layer')
      .map((m) => ({
        filename: m.filename,
        kind: m.kind,
        url: mediaUrl(p.id, m.filename),
        contentType: m.content_type,
        size: m.size,
        width: m.width,
        height: m.height,
        modified: m.modified_at.toISOString(),
      })),
  });

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
  const detailWithPictures = async (p: ProductView, files: MediaRow[]) =>
    toDetail(p, [...files, ...(await pictureMedia(p, files))]);
  /** A stored media file or a drawn picture of the product, null when it has no file of that name. */
  async function fileOf(p: ProductView, filename: string): Promise<MediaRow | null> {
    const stored = await reads.mediaFile(db, p.id, filename);
    if (stored) return stored;
    const subject = subjectOf(p);
    if (!subject || !pictureSpecs(subject).some((x) => x.filename === filename)) return null;
    return (await pictureMedia(p, [])).find((m) => m.filename === filename) ?? null;
  }

  async function visibleRow(orgId: string, ref: string): Promise<ProductView> {
    return mustFind(isReference('Product', ref) ? await reads.product(db, orgId, ref) : null, 'Product', ref);
  }

  const admin = catalogAdmin({
    ...deps,
    detail: async (id: string, view: ProductView) => detailWithPictures(view, await reads.media(db, id)),
  });

  // Products are read on every product page and every order, and change a few times a day: each
  // process keeps them, with the response body made once, until any catalog change (admin-context.ts
  // announces every committed write).
  // The detail with pictures is made on first ask (drawing them may take a moment), then kept.
  type Cached = { view: ProductView; detail: ReturnType<typeof toDetail>; media: MediaRow[]; full?: Promise<Detail> };
  type Detail = ReturnType<typeof toDetail>;
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
        { view: p.product, detail: toDetail(p.product, p.media), media: p.media },
      ]),
    );
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

  const stock = stockMovements(deps);
  const service = {
    ...stock,
    async listProducts(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'products',
        load: (ks) => reads.products(db, orgId, ks),
        item: toListItem,
      });
    },
    /** Archived products leave the list but still answer here. */
    product: (orgId: string, ref: string) => productDetail(orgId, ref, false),
    /** The product as GET shows it, or null when the organization cannot see it. */
    findProduct: async (orgId: string, ref: string) => {
      const [found] = await visibleProducts(orgId, [ref]);
      return found ? withStock(found, false) : null;
    },
    /**
     * Read past the cache: the change job may run on a node that has not yet heard of the change
     * it reports.
     */
    freshProduct: (orgId: string, ref: string) => productDetail(orgId, ref, true),
    /** A media file's record; the caller streams `blob_key` from the blob store. */
    async mediaFile(orgId: string, ref: string, filename: string): Promise<MediaRow> {
      const row = await visibleRow(orgId, ref);
      return mustFind(await fileOf(row, filename), 'Media file', `${ref}/${filename}`);
    },
    /** The operator's form of `mediaFile`: any product's file, null when there is none. */
    async anyMediaFile(productId: string, filename: string): Promise<MediaRow | null> {
      const [found] = isReference('Product', productId) ? await reads.productsWithMedia(db, [productId]) : [];
      return found ? fileOf(found.product, filename) : null;
    },
    /**
     * A product's pictures with their bytes (back, three-quarter and side view of a case; front,
     * angle and side of an accessory), drawn now if they are not yet; empty for a product without
     * pictures or an unknown reference. For the picture makers (the mockups' contact sheet).
     */
    async productPictures(ref: string): Promise<ProductPicture[]> {
      const [found] = isReference('Product', ref) ? await reads.productsWithMedia(db, [ref]) : [];
      const subject = found ? subjectOf(found.product) : null;
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
    },
    async lookupLegacySku(orgId: string, sku: string) {
      const row = mustFind(await reads.productByLegacySku(db, orgId, sku), `Product with legacyItemSku ${sku}`);
      return { productReference: row.id };
    },
    async listProductgroups(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'productgroups',
        load: (ks) => reads.productgroups(db, orgId, ks),
        item: toProductgroup,
      });
    },
    async listPackagings(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'packagings',
        load: (ks) => reads.packagings(db, orgId, ks),
        item: toPackaging,
      });
    },
    /** Only stock the organization itself stores at the service. */
    async listItems(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'items',
        load: (ks) => reads.items(db, orgId, ks),
        async items(rows: ItemRow[]) {
          const ids = rows.map((r) => r.id);
          const links = ids.length ? await reads.productsOfItems(db, orgId, ids) : [];
          return rows.map((i) => ({
            reference: i.id,
            sku: i.sku,
            logicalQuantity: i.logical_quantity,
            physicalQuantity: i.physical_quantity,
            products: links.filter((l) => l.item_id === i.id).map((l) => ({ reference: l.id })),
          }));
        },
      });
    },

    // ---- for other modules ----

    /** The visible ones among `references`; unknown, malformed or invisible ones are absent. */
    async orderableProducts(orgId: string, references: string[]): Promise<Map<string, OrderableProduct>> {
      return new Map((await visibleProducts(orgId, references)).map((c) => [c.view.id, toOrderable(c.view)]));
    },
    async visibleProduct(orgId: string, ref: string): Promise<OrderableProduct> {
      return toOrderable(await visibleRow(orgId, ref));
    },
    async visibleProductgroup(orgId: string, ref: string) {
      const row = mustFind(
        isReference('Productgroup', ref) ? await reads.productgroup(db, orgId, ref) : null,
        'Productgroup',
        ref,
      );
      return { ...toProductgroup(row), priceCents: row.price_cents };
    },
    async visiblePackaging(orgId: string, ref: string) {
      const row = mustFind(
        isReference('Packaging', ref) ? await reads.packaging(db, orgId, ref) : null,
        'Packaging',
        ref,
      );
      return toPackaging(row);
    },
    /** The orders module's form of `visiblePackaging`: null instead of a 404. */
    async packagingForOrganization(orgId: string, ref: string) {
      const row = isReference('Packaging', ref) ? await reads.packaging(db, orgId, ref) : null;
      return row ? toPackaging(row) : null;
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
    /** Every product the organization can see, archived included (the demo seed lists them). */
    /**
     * What a product looks like, for the picture makers (product media, mockups): the device it fits
     * and its productgroup's case type with the material. Either is null when the product has none
     * (accessories, cases imported without a device). Unknown references are left out.
     */
    async productShapes(refs: string[]): Promise<Map<string, ProductShape>> {
      const ids = [...new Set(refs.filter((r) => isReference('Product', r)))];
      const rows = ids.length ? await catalogWrites.productShapes(db, ids) : [];
      return new Map(
        rows.map((r) => [
          r.id,
          {
            device: r.geometry,
            // In the product's colourway: every picture and mockup of it shows its own colour.
            caseType: isCaseType(r.case_type) ? inColourway(CASE_TYPES[r.case_type], r.look) : null,
            colour: r.look?.colour ?? null,
          },
        ]),
      );
    },
    /** The stored device table. */
    async devices(): Promise<DeviceGeometry[]> {
      return (await catalogWrites.devices(db)).map((r) => r.geometry);
    },

    async productSummaries(orgId: string) {
      return (await reads.allProducts(db, orgId)).map((p) => ({
        reference: p.id,
        name: p.name,
        status: p.status,
        printable: p.printable,
      }));
    },

    // ---- operator ----
    ...admin,
  };
  return service;
}

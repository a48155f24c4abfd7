import type { ProductLook } from './look.ts';
import type { Executor, Row } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';
import type { DeviceGeometry } from './devices.ts';

export interface PrintSpec {
  widthMm: number;
  heightMm: number;
  widthPx: number;
  heightPx: number;
  dpi: number;
}

export interface ProductgroupRow {
  id: string;
  seq: number;
  code: string;
  name: string;
  price_cents: number;
  private_organization_id: string | null;
  case_type: string | null;
  created_at: Date;
  updated_at: Date;
}
export interface DeviceRow {
  key: string;
  geometry: DeviceGeometry;
  created_at: Date;
  updated_at: Date;
}
export interface PackagingRow {
  id: string;
  seq: number;
  code: string;
  name: string;
  private_organization_id: string | null;
  created_at: Date;
  updated_at: Date;
}
export interface ItemRow {
  id: string;
  seq: number;
  organization_id: string | null;
  sku: string;
  logical_quantity: number;
  physical_quantity: number;
  created_at: Date;
  updated_at: Date;
}
export interface ProductRow {
  id: string;
  seq: number;
  productgroup_id: string;
  item_id: string;
  name: string;
  legacy_item_sku: string;
  status: string;
  printable: boolean;
  weight_grams: number;
  print_spec: PrintSpec | null;
  device_key: string | null;
  look: ProductLook | null;
  layers_modified: Date | null;
  print_modified: Date | null;
  created_at: Date;
  updated_at: Date;
}
/** A product with what it shows from its productgroup and item. */
export interface ProductView extends ProductRow {
  price_cents: number;
  private_organization_id: string | null;
  logical_quantity: number;
  /** The productgroup's case type and the device's geometry: what the product's pictures show. */
  case_type: string | null;
  device_geometry: DeviceGeometry | null;
}
/** A product picture drawn once and kept (by content key, shared by products showing the same). */
export interface PictureRow {
  key: string;
  content_type: string;
  blob_key: string;
  sha256: string;
  size: number;
  width: number;
  height: number;
  created_at: Date;
}
export interface MediaRow {
  product_id: string;
  filename: string;
  name: string;
  kind: 'example_image' | 'example_render' | 'layer';
  position: number;
  content_type: string;
  blob_key: string;
  sha256: string;
  size: number;
  width: number;
  height: number;
  modified_at: Date;
}

const VISIBLE = '(g.private_organization_id IS NULL OR g.private_organization_id = $1)';
/** A product with its productgroup's price and visibility, its item's stock and its device. */
export const PRODUCT_VIEW = `SELECT p.*, g.price_cents, g.private_organization_id, i.logical_quantity, g.case_type, d.geometry AS device_geometry
  FROM products p JOIN productgroups g ON g.id = p.productgroup_id JOIN items i ON i.id = p.item_id
  LEFT JOIN devices d ON d.key = p.device_key`;

/** The SQL visibility rule (`VISIBLE`) for a row already read. */
export const isVisibleTo = (orgId: string, p: { private_organization_id: string | null }) =>
  p.private_organization_id === null || p.private_organization_id === orgId;

/** Reads as a partner sees them: public records and the organization's private ones. */
/** Productgroups and packagings are read alike: those the organization may see, newest first. */
function visibleRows<R extends Row>(table: 'productgroups' | 'packagings') {
  return {
    list: (ex: Executor, orgId: string, ks: Keyset): Promise<R[]> =>
      ex.query<R>(
        `SELECT * FROM ${table} g WHERE ${VISIBLE} AND ($2::bigint IS NULL OR g.seq < $2) ORDER BY g.seq DESC LIMIT $3`,
        [orgId, ks.after, ks.limit],
      ),
    one: async (ex: Executor, orgId: string, id: string): Promise<R | null> =>
      (await ex.query<R>(`SELECT * FROM ${table} g WHERE ${VISIBLE} AND g.id = $2`, [orgId, id]))[0] ?? null,
  };
}
const productgroupReads = visibleRows<ProductgroupRow>('productgroups');
const packagingReads = visibleRows<PackagingRow>('packagings');

export const catalogReads = {
  async products(ex: Executor, orgId: string, ks: Keyset): Promise<ProductView[]> {
    return ex.query<ProductView>(
      `${PRODUCT_VIEW} WHERE ${VISIBLE} AND p.status <> 'archived' AND ($2::bigint IS NULL OR p.seq < $2) ORDER BY p.seq DESC LIMIT $3`,
      [orgId, ks.after, ks.limit],
    );
  },
  async product(ex: Executor, orgId: string, id: string): Promise<ProductView | null> {
    return (await ex.query<ProductView>(`${PRODUCT_VIEW} WHERE ${VISIBLE} AND p.id = $2`, [orgId, id]))[0] ?? null;
  },
  /**
   * Products with their media in one round trip, whoever may see them: the caller checks
   * visibility (`isVisibleTo`), so that one cached copy serves every organization.
   */
  async productsWithMedia(ex: Executor, ids: string[]): Promise<Array<{ product: ProductView; media: MediaRow[] }>> {
    const rows = await ex.query<
      ProductView & { media: Array<Omit<MediaRow, 'modified_at'> & { modified_at: string }> }
    >(
      `${PRODUCT_VIEW.replace('SELECT p.*,', `SELECT p.*, COALESCE((SELECT json_agg(m ORDER BY m.kind, m.position, m.filename) FROM product_media m WHERE m.product_id = p.id), '[]') AS media,`)}
       WHERE p.id = ANY($1::text[])`,
      [ids],
    );
    return rows.map(({ media, ...product }) => ({
      product: product as ProductView,
      media: media.map((m) => ({ ...m, modified_at: new Date(m.modified_at) })),
    }));
  },
  /** An item's stock figure for the product views (null: no such item). */
  async itemQuantity(ex: Executor, itemId: string): Promise<number | null> {
    const rows = await ex.query<{ q: number }>('SELECT logical_quantity AS q FROM items WHERE id = $1', [itemId]);
    return rows[0]?.q ?? null;
  },
  async allProducts(ex: Executor, orgId: string): Promise<ProductView[]> {
    return ex.query<ProductView>(`${PRODUCT_VIEW} WHERE ${VISIBLE} ORDER BY p.seq`, [orgId]);
  },
  async productByLegacySku(ex: Executor, orgId: string, sku: string): Promise<ProductView | null> {
    return (
      (await ex.query<ProductView>(`${PRODUCT_VIEW} WHERE ${VISIBLE} AND p.legacy_item_sku = $2`, [orgId, sku]))[0] ??
      null
    );
  },
  async media(ex: Executor, productId: string): Promise<MediaRow[]> {
    return ex.query<MediaRow>('SELECT * FROM product_media WHERE product_id = $1 ORDER BY kind, position, filename', [
      productId,
    ]);
  },
  async mediaFile(ex: Executor, productId: string, filename: string): Promise<MediaRow | null> {
    return (
      (
        await ex.query<MediaRow>('SELECT * FROM product_media WHERE product_id = $1 AND filename = $2', [
          productId,
          filename,
        ])
      )[0] ?? null
    );
  },
  productgroups: productgroupReads.list,
  productgroup: productgroupReads.one,
  packagings: packagingReads.list,
  packaging: packagingReads.one,
  async items(ex: Executor, orgId: string, ks: Keyset): Promise<ItemRow[]> {
    return ex.query<ItemRow>(
      'SELECT * FROM items WHERE organization_id = $1 AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT $3',
      [orgId, ks.after, ks.limit],
    );
  },
  /** Products of the given items that the organization may see, for the items' `products`. */
  async productsOfItems(
    ex: Executor,
    orgId: string,
    itemIds: string[],
  ): Promise<Array<{ id: string; item_id: string }>> {
    return ex.query(
      `SELECT p.id, p.item_id FROM products p JOIN productgroups g ON g.id = p.productgroup_id
       WHERE ${VISIBLE} AND p.item_id = ANY($2::text[]) ORDER BY p.seq`,
      [orgId, itemIds],
    );
  },
};

/** Drawn product pictures (pictures/store.ts). */
export const pictureRepo = {
  async pictures(ex: Executor, keys: string[]): Promise<PictureRow[]> {
    return keys.length
      ? ex.query<PictureRow>('SELECT * FROM product_pictures WHERE key = ANY($1::text[])', [keys])
      : [];
  },
  /** Two processes drawing the same picture write the same bytes under the same key: the first row stays. */
  async insertPicture(ex: Executor, r: PictureRow): Promise<void> {
    await ex.query(
      `INSERT INTO product_pictures (key, content_type, blob_key, sha256, size, width, height, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (key) DO NOTHING`,
      [r.key, r.content_type, r.blob_key, r.sha256, r.size, r.width, r.height, r.created_at],
    );
  },
};

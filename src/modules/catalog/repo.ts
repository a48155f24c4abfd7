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
const PRODUCT_VIEW = `SELECT p.*, g.price_cents, g.private_organization_id, i.logical_quantity, g.case_type, d.geometry AS device_geometry
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

/**
 * A productgroup, packaging or item as the operator names it: by its key (code or SKU) or its
 * reference (`named`, the key winning when both match), or by one string that is either (`byKey`).
 */
function keyedRows<R extends Row>(table: 'productgroups' | 'packagings' | 'items', key: 'code' | 'sku') {
  return {
    named: async (ex: Executor, value: string, id: string | undefined): Promise<R | null> =>
      (
        await ex.query<R>(`SELECT * FROM ${table} WHERE ${key} = $1 OR id = $2 ORDER BY (${key} = $1) DESC LIMIT 1`, [
          value,
          id ?? null,
        ])
      )[0] ?? null,
    byKey: async (ex: Executor, value: string): Promise<R | null> =>
      (await ex.query<R>(`SELECT * FROM ${table} WHERE ${key} = $1 OR id = $1`, [value]))[0] ?? null,
  };
}
const productgroupKeys = keyedRows<ProductgroupRow>('productgroups', 'code');
const packagingKeys = keyedRows<PackagingRow>('packagings', 'code');
const itemKeys = keyedRows<ItemRow>('items', 'sku');

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

/** Writes of the operator (catalog import, product changes): no visibility filter. */
export const catalogWrites = {
  productgroup: productgroupKeys.named,
  productgroupByKey: productgroupKeys.byKey,
  async insertProductgroup(ex: Executor, g: Omit<ProductgroupRow, 'seq'>) {
    await ex.query(
      'INSERT INTO productgroups (id, code, name, price_cents, private_organization_id, case_type, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [g.id, g.code, g.name, g.price_cents, g.private_organization_id, g.case_type, g.created_at, g.updated_at],
    );
  },
  async updateProductgroup(
    ex: Executor,
    id: string,
    g: {
      code: string;
      name: string;
      price_cents: number;
      private_organization_id: string | null;
      case_type: string | null;
      at: Date;
    },
  ) {
    await ex.query(
      'UPDATE productgroups SET code = $2, name = $3, price_cents = $4, private_organization_id = $5, case_type = $6, updated_at = $7 WHERE id = $1',
      [id, g.code, g.name, g.price_cents, g.private_organization_id, g.case_type, g.at],
    );
  },

  packaging: packagingKeys.named,
  async insertPackaging(ex: Executor, p: Omit<PackagingRow, 'seq'>) {
    await ex.query(
      'INSERT INTO packagings (id, code, name, private_organization_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [p.id, p.code, p.name, p.private_organization_id, p.created_at, p.updated_at],
    );
  },
  async updatePackaging(
    ex: Executor,
    id: string,
    p: { code: string; name: string; private_organization_id: string | null; at: Date },
  ) {
    await ex.query(
      'UPDATE packagings SET code = $2, name = $3, private_organization_id = $4, updated_at = $5 WHERE id = $1',
      [id, p.code, p.name, p.private_organization_id, p.at],
    );
  },

  item: itemKeys.named,
  itemByKey: itemKeys.byKey,
  async lockItem(ex: Executor, id: string): Promise<ItemRow | null> {
    return (await ex.query<ItemRow>('SELECT * FROM items WHERE id = $1 FOR UPDATE', [id]))[0] ?? null;
  },
  async insertItem(ex: Executor, i: Omit<ItemRow, 'seq'>) {
    await ex.query(
      'INSERT INTO items (id, organization_id, sku, logical_quantity, physical_quantity, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [i.id, i.organization_id, i.sku, i.logical_quantity, i.physical_quantity, i.created_at, i.updated_at],
    );
  },
  async updateItem(
    ex: Executor,
    id: string,
    i: { sku: string; organization_id: string | null; logical_quantity: number; physical_quantity: number; at: Date },
  ) {
    await ex.query(
      'UPDATE items SET sku = $2, organization_id = $3, logical_quantity = $4, physical_quantity = $5, updated_at = $6 WHERE id = $1',
      [id, i.sku, i.organization_id, i.logical_quantity, i.physical_quantity, i.at],
    );
  },
  /** Products of an item with the visibility of their productgroup, for change events. */
  async productsOfItem(
    ex: Executor,
    itemId: string,
  ): Promise<Array<{ id: string; private_organization_id: string | null }>> {
    return ex.query(
      'SELECT p.id, g.private_organization_id FROM products p JOIN productgroups g ON g.id = p.productgroup_id WHERE p.item_id = $1 ORDER BY p.seq',
      [itemId],
    );
  },
  async legacySkusOfItem(ex: Executor, itemId: string): Promise<string[]> {
    return (
      await ex.query<{ legacy_item_sku: string }>('SELECT legacy_item_sku FROM products WHERE item_id = $1', [itemId])
    ).map((r) => r.legacy_item_sku);
  },

  async product(ex: Executor, id: string): Promise<ProductView | null> {
    return (await ex.query<ProductView>(`${PRODUCT_VIEW} WHERE p.id = $1`, [id]))[0] ?? null;
  },
  async lockProduct(ex: Executor, id: string): Promise<ProductRow | null> {
    return (await ex.query<ProductRow>('SELECT * FROM products WHERE id = $1 FOR UPDATE', [id]))[0] ?? null;
  },
  async productByLegacySku(ex: Executor, sku: string): Promise<ProductRow | null> {
    return (await ex.query<ProductRow>('SELECT * FROM products WHERE legacy_item_sku = $1', [sku]))[0] ?? null;
  },
  async productByItemAndName(ex: Executor, itemId: string, name: string): Promise<ProductRow | null> {
    return (
      (
        await ex.query<ProductRow>('SELECT * FROM products WHERE item_id = $1 AND name = $2 ORDER BY seq LIMIT 1', [
          itemId,
          name,
        ])
      )[0] ?? null
    );
  },
  async allProducts(ex: Executor, ks: Keyset): Promise<ProductView[]> {
    return ex.query<ProductView>(
      `${PRODUCT_VIEW} WHERE ($1::bigint IS NULL OR p.seq < $1) ORDER BY p.seq DESC LIMIT $2`,
      [ks.after, ks.limit],
    );
  },
  async insertProduct(ex: Executor, p: Omit<ProductRow, 'seq'>) {
    await ex.query(
      `INSERT INTO products (id, productgroup_id, item_id, name, legacy_item_sku, status, printable, weight_grams, print_spec, layers_modified, print_modified, created_at, updated_at, device_key, look)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        p.id,
        p.productgroup_id,
        p.item_id,
        p.name,
        p.legacy_item_sku,
        p.status,
        p.printable,
        p.weight_grams,
        p.print_spec === null ? null : JSON.stringify(p.print_spec),
        p.layers_modified,
        p.print_modified,
        p.created_at,
        p.updated_at,
        p.device_key,
        p.look === null ? null : JSON.stringify(p.look),
      ],
    );
  },
  async updateProduct(ex: Executor, p: Omit<ProductRow, 'seq' | 'created_at'>) {
    await ex.query(
      `UPDATE products SET productgroup_id = $2, item_id = $3, name = $4, legacy_item_sku = $5, status = $6, printable = $7, weight_grams = $8,
         print_spec = $9, layers_modified = $10, print_modified = $11, updated_at = $12, device_key = $13, look = $14 WHERE id = $1`,
      [
        p.id,
        p.productgroup_id,
        p.item_id,
        p.name,
        p.legacy_item_sku,
        p.status,
        p.printable,
        p.weight_grams,
        p.print_spec === null ? null : JSON.stringify(p.print_spec),
        p.layers_modified,
        p.print_modified,
        p.updated_at,
        p.device_key,
        p.look === null ? null : JSON.stringify(p.look),
      ],
    );
  },

  async applied(ex: Executor, digest: string): Promise<boolean> {
    return (await ex.query('SELECT 1 FROM catalog_applied WHERE digest = $1', [digest])).length > 0;
  },
  async recordApplied(ex: Executor, digest: string, at: Date) {
    await ex.query('INSERT INTO catalog_applied (digest, applied_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      digest,
      at,
    ]);
  },
  async devices(ex: Executor): Promise<DeviceRow[]> {
    return ex.query<DeviceRow>('SELECT key, geometry, created_at, updated_at FROM devices ORDER BY key');
  },
  async device(ex: Executor, key: string): Promise<DeviceRow | null> {
    return (
      (
        await ex.query<DeviceRow>('SELECT key, geometry, created_at, updated_at FROM devices WHERE key = $1', [key])
      )[0] ?? null
    );
  },
  async upsertDevice(ex: Executor, d: DeviceGeometry, at: Date) {
    await ex.query(
      `INSERT INTO devices (key, brand, model, release_date, flagship, geometry, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (key) DO UPDATE SET brand = $2, model = $3, release_date = $4, flagship = $5, geometry = $6, updated_at = $7`,
      [d.key, d.brand, d.model, d.releaseDate, d.flagship, JSON.stringify(d), at],
    );
  },
  /** Every product that fits a device, with what its stage and print area follow from. */
  async productsWithDevices(ex: Executor): Promise<
    Array<{
      id: string;
      status: string;
      printable: boolean;
      print_spec: PrintSpec | null;
      case_type: string | null;
      geometry: DeviceGeometry;
      has_layers: boolean;
    }>
  > {
    return ex.query(
      `SELECT p.id, p.status, p.printable, p.print_spec, g.case_type, d.geometry,
              EXISTS (SELECT 1 FROM product_media m WHERE m.product_id = p.id AND m.kind = 'layer') AS has_layers
         FROM products p JOIN productgroups g ON g.id = p.productgroup_id JOIN devices d ON d.key = p.device_key
        ORDER BY p.seq`,
    );
  },
  /** Device and case type of products, for the picture makers (rendering). */
  async productShapes(
    ex: Executor,
    ids: string[],
  ): Promise<
    Array<{ id: string; case_type: string | null; geometry: DeviceGeometry | null; look: ProductLook | null }>
  > {
    return ex.query(
      `SELECT p.id, g.case_type, d.geometry, p.look FROM products p JOIN productgroups g ON g.id = p.productgroup_id
         LEFT JOIN devices d ON d.key = p.device_key WHERE p.id = ANY($1)`,
      [ids],
    );
  },

  async mediaOfKind(ex: Executor, productId: string, kinds: string[]): Promise<MediaRow[]> {
    return ex.query<MediaRow>(
      'SELECT * FROM product_media WHERE product_id = $1 AND kind = ANY($2::text[]) ORDER BY position',
      [productId, kinds],
    );
  },
  async deleteMedia(ex: Executor, productId: string, filename: string) {
    await ex.query('DELETE FROM product_media WHERE product_id = $1 AND filename = $2', [productId, filename]);
  },
  async insertMedia(ex: Executor, m: MediaRow) {
    await ex.query(
      `INSERT INTO product_media (product_id, filename, name, kind, position, content_type, blob_key, sha256, size, width, height, modified_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        m.product_id,
        m.filename,
        m.name,
        m.kind,
        m.position,
        m.content_type,
        m.blob_key,
        m.sha256,
        m.size,
        m.width,
        m.height,
        m.modified_at,
      ],
    );
  },
  async setMediaPosition(ex: Executor, productId: string, filename: string, position: number) {
    await ex.query('UPDATE product_media SET position = $3 WHERE product_id = $1 AND filename = $2', [
      productId,
      filename,
      position,
    ]);
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

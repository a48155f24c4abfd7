import type { ProductLook } from './look.ts';
import type { Executor, Row } from '../../platform/db/index.ts';
import type { Keyset } from '../../platform/http/pagination.ts';
import type { DeviceGeometry } from './devices.ts';
import {
  type DeviceRow,
  type ItemRow,
  type MediaRow,
  type PackagingRow,
  PRODUCT_VIEW,
  type PrintSpec,
  type ProductRow,
  type ProductView,
  type ProductgroupRow,
} from './repo.ts';

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

/** The columns an insert and an update of a product both write, in one order. */
const PRODUCT_COLUMNS = [
  'productgroup_id',
  'item_id',
  'name',
  'legacy_item_sku',
  'status',
  'printable',
  'weight_grams',
  'print_spec',
  'layers_modified',
  'print_modified',
  'updated_at',
  'device_key',
  'look',
] as const;
const json = (v: object | null) => (v === null ? null : JSON.stringify(v));
const productValues = (p: Omit<ProductRow, 'seq' | 'created_at'>) =>
  PRODUCT_COLUMNS.map((c) => (c === 'print_spec' || c === 'look' ? json(p[c]) : p[c]));

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
    const columns = ['id', 'created_at', ...PRODUCT_COLUMNS];
    await ex.query(
      `INSERT INTO products (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
      [p.id, p.created_at, ...productValues(p)],
    );
  },
  async updateProduct(ex: Executor, p: Omit<ProductRow, 'seq' | 'created_at'>) {
    await ex.query(
      `UPDATE products SET ${PRODUCT_COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`,
      [p.id, ...productValues(p)],
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

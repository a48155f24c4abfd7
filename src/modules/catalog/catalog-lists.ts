import { mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import type { CatalogDeps } from './deps.ts';
import { toPackaging, toProductgroup, type productViews } from './product-views.ts';
import { type ItemRow, catalogReads as reads } from './repo.ts';

/** The partner's lists of the catalog: products, productgroups, packagings and its own items. */
export function catalogLists(deps: Pick<CatalogDeps, 'db' | 'cursors'>, views: ReturnType<typeof productViews>) {
  const { db, cursors } = deps;
  return {
    async listProducts(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'products',
        load: (ks) => reads.products(db, orgId, ks),
        item: views.toListItem,
      });
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
  };
}

import type { Static } from 'typebox';
import { mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference } from '../../platform/ids.ts';
import { type AdminDeps, adminContext } from './admin-context.ts';
import { drawnShape, refuseGivenPrint } from './print-spec.ts';
import { lifecycleAdvance } from './advance-lifecycle.ts';
import { CASE_TYPES, isCaseType } from './casetypes.ts';
import { storeFiles } from './files.ts';
import { catalogImport } from './import-catalog.ts';
import { pictureFile, pictureSubject } from './pictures/index.ts';
import { catalogWrites as w } from './admin-repo.ts';
import type { ProductChange as ProductChangeBody, StockIn } from './schemas.ts';
import { allFiles, placeFiles } from './product-files.ts';

/**
 * The operator's side of the catalog: importing a catalog file (import-catalog.ts), advancing the
 * lifecycle (advance-lifecycle.ts), changing one product or an item's stock, and reading any product.
 */
export function catalogAdmin(deps: AdminDeps) {
  const { db } = deps;
  const ctx = adminContext(deps);
  const { write, setStock, saveProduct } = ctx;

  async function productView(ref: string) {
    return mustFind(isReference('Product', ref) ? await w.product(db, ref) : null, 'Product', ref);
  }

  /** Any product with who may see it (operator view). */
  async function operatorProduct(ref: string) {
    const view = await productView(ref);
    return {
      ...(await deps.detail(view.id, view)),
      privateOrganizationReference: view.private_organization_id,
      device: view.device_key,
      caseType: view.case_type,
      look: view.look,
    };
  }

  return {
    ...catalogImport(ctx),
    advanceLifecycle: lifecycleAdvance(ctx),

    /** Status, name, stock, print specification, layers and media of one product (operator). */
    async changeProduct(ref: string, change: Static<typeof ProductChangeBody>) {
      const files = await placeFiles(change, 'body', async (view, format) => {
        const p = await productView(ref);
        const subject = pictureSubject({
          device: p.device_geometry,
          caseType: isCaseType(p.case_type) ? CASE_TYPES[p.case_type] : null,
          look: p.look,
        });
        return subject ? pictureFile(subject, view, format) : null;
      });
      await storeFiles(deps.blobs, allFiles(files));
      await write(async (tx) => {
        const cur = mustFind(isReference('Product', ref) ? await w.lockProduct(tx, ref) : null, 'Product', ref);
        const view = (await w.product(tx, ref))!;
        refuseGivenPrint(change.print, cur.printable && drawnShape(view) !== null, 'body');
        const item = (await w.lockItem(tx, cur.item_id))!;
        if (change.stock)
          await setStock(
            tx,
            item,
            change.stock.logicalQuantity,
            change.stock.physicalQuantity ?? item.physical_quantity,
          );
        await saveProduct(
          tx,
          cur,
          {
            productgroupId: cur.productgroup_id,
            itemId: cur.item_id,
            privateOrganizationId: view.private_organization_id,
            name: change.name ?? cur.name,
            status: change.status ?? cur.status,
            printable: cur.printable,
            print: change.print,
          },
          files,
          item,
          'body',
        );
      });
      return operatorProduct(ref);
    },
    /** Stock of a warehouse item, by SKU or reference. */
    async setItemStock(key: string, stock: Static<typeof StockIn>) {
      return write(async (tx) => {
        const found = mustFind(await w.itemByKey(tx, key), 'Item', key);
        const item = (await w.lockItem(tx, found.id))!;
        await setStock(tx, item, stock.logicalQuantity, stock.physicalQuantity ?? item.physical_quantity);
        const after = (await w.lockItem(tx, item.id))!;
        return {
          item: {
            reference: after.id,
            sku: after.sku,
            organizationReference: after.organization_id,
            logicalQuantity: after.logical_quantity,
            physicalQuantity: after.physical_quantity,
          },
        };
      });
    },
    operatorProduct,
    async operatorProducts(page: PageRequest) {
      return listPage(deps.cursors, page, {
        plural: 'products',
        scope: 'operator-products',
        load: (ks) => w.allProducts(db, ks),
        item: (v) => ({
          reference: v.id,
          legacyItemSKU: v.legacy_item_sku,
          name: v.name,
          status: v.status,
          printable: v.printable,
          productgroupReference: v.productgroup_id,
          privateOrganizationReference: v.private_organization_id,
          availableQuantity: Math.max(0, v.logical_quantity),
        }),
      });
    },
  };
}

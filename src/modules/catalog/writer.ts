import { isDeepStrictEqual } from 'node:util';
import type { ProductLook } from './look.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/queue.ts';
import { PRODUCT_CHANGED_JOB, type ProductChange } from './events.ts';
import { type ProductFiles, syncFiles } from './product-files.ts';
import { catalogWrites as w } from './admin-repo.ts';
import type { ItemRow, PrintSpec, ProductRow } from './repo.ts';
import { STATUSES } from './schemas.ts';
import { stockRepo } from './stock-repo.ts';

/** Products created from this instant on carry a suffixed legacy SKU (spec: Product.legacyItemSKU). */
export const SUFFIXED_SKU_FROM = new Date('2026-03-22T00:00:00Z');

export type Outcome = 'created' | 'updated' | 'unchanged';
export interface Desired {
  id?: string;
  productgroupId: string;
  itemId: string;
  /** The productgroup's organization, or null for a public product (who hears of changes). */
  privateOrganizationId: string | null;
  name: string;
  legacySku?: string;
  status: string;
  printable: boolean;
  weightGrams?: number;
  created?: Date;
  /** undefined: keep as it is. */
  print?: PrintSpec | null;
  /** The device the product fits; undefined: keep as it is. */
  deviceKey?: string | null;
  /** What its pictures show; undefined: keep as it is. */
  look?: ProductLook | null;
}

export const samePrint = (a: PrintSpec | null, b: PrintSpec | null) =>
  a === b ||
  (!!a &&
    !!b &&
    a.widthMm === b.widthMm &&
    a.heightMm === b.heightMm &&
    a.widthPx === b.widthPx &&
    a.heightPx === b.heightPx &&
    a.dpi === b.dpi);

function checkTransition(from: string, to: string, where: string): void {
  if (STATUSES.indexOf(to as never) < STATUSES.indexOf(from as never)) {
    throw conflict(
      'invalid_status_transition',
      `${where}: a product only moves forward through ${STATUSES.join(' → ')}; ${from} cannot go back to ${to}`,
    );
  }
}

async function newLegacySku(tx: Executor, item: ItemRow, created: Date): Promise<string> {
  if (created < SUFFIXED_SKU_FROM) return item.sku;
  let highest = 0;
  for (const sku of await w.legacySkusOfItem(tx, item.id)) {
    const m = sku.startsWith(`${item.sku}P`) ? /^\d{3,}$/.exec(sku.slice(item.sku.length + 1)) : null;
    if (m) highest = Math.max(highest, Number(m[0]));
  }
  return `${item.sku}P${String(highest + 1).padStart(3, '0')}`;
}

/** The rules a product's change must keep; answers the print specification it ends with. */
function checkProduct(cur: ProductRow | null, d: Desired, files: ProductFiles, where: string): PrintSpec | null {
  if (!d.printable && (d.print || files.layers?.length))
    throw badRequest(`${where}: a non-print product has no print specification or layers`, 'not_printable');
  if (cur) {
    if (cur.printable !== d.printable)
      throw conflict('printable_immutable', `${where}: whether a product is a print product cannot change (${cur.id})`);
    if (d.legacySku !== undefined && d.legacySku !== cur.legacy_item_sku)
      throw conflict('legacy_sku_immutable', `${where}: ${cur.id} already has legacy SKU ${cur.legacy_item_sku}`);
    checkTransition(cur.status, d.status, where);
  }
  const print = d.print === undefined ? (cur?.print_spec ?? null) : d.print;
  if (d.printable && d.status !== 'announced' && !print) {
    throw conflict(
      'print_spec_required',
      `${where}: a print product needs its print dimensions before it leaves announced`,
    );
  }
  return print;
}

/** A new product with its files; its legacy SKU is given or the item's next free one. */
async function createProduct(
  tx: Executor,
  d: Desired,
  files: ProductFiles,
  item: ItemRow,
  print: PrintSpec | null,
  now: Date,
  where: string,
): Promise<string> {
  const created = d.created ?? now;
  const id = d.id ?? newReference('Product');
  const legacySku = d.legacySku ?? (await newLegacySku(tx, item, created));
  const taken = await w.productByLegacySku(tx, legacySku);
  if (taken)
    throw conflict(
      'legacy_sku_in_use',
      `${where}: legacy SKU ${legacySku} already belongs to ${taken.id}; products created before 2026-03-22 carry the warehouse SKU, so give legacyItemSku explicitly`,
    );
  await w.insertProduct(tx, {
    id,
    productgroup_id: d.productgroupId,
    item_id: d.itemId,
    name: d.name,
    legacy_item_sku: legacySku,
    status: d.status,
    printable: d.printable,
    weight_grams: d.weightGrams ?? 50,
    print_spec: print,
    device_key: d.deviceKey ?? null,
    look: d.look ?? null,
    layers_modified: files.layers?.length ? created : null,
    print_modified: print ? created : null,
    created_at: created,
    updated_at: now,
  });
  if (files.layers) await syncFiles(tx, id, ['layer'], files.layers, created);
  if (files.media) await syncFiles(tx, id, ['example_image', 'example_render'], files.media, created);
  return id;
}

/** Changes a product and its files; a row or file that stays the same keeps its dates. */
async function changeProduct(
  tx: Executor,
  cur: ProductRow,
  d: Desired,
  files: ProductFiles,
  print: PrintSpec | null,
  now: Date,
): Promise<{ rowChanged: boolean; mediaChanged: boolean }> {
  const printChanged = !samePrint(cur.print_spec, print);
  const layersChanged = files.layers ? await syncFiles(tx, cur.id, ['layer'], files.layers, now) : false;
  const mediaChanged = files.media
    ? await syncFiles(tx, cur.id, ['example_image', 'example_render'], files.media, now)
    : false;
  const next = {
    id: cur.id,
    productgroup_id: d.productgroupId,
    item_id: d.itemId,
    name: d.name,
    legacy_item_sku: cur.legacy_item_sku,
    status: d.status,
    printable: cur.printable,
    weight_grams: d.weightGrams ?? cur.weight_grams,
    print_spec: print,
    device_key: d.deviceKey === undefined ? cur.device_key : d.deviceKey,
    look: d.look === undefined ? cur.look : d.look,
    layers_modified: layersChanged ? now : cur.layers_modified,
    print_modified: printChanged ? (print ? now : null) : cur.print_modified,
    updated_at: now,
  };
  const rowChanged =
    printChanged ||
    layersChanged ||
    next.productgroup_id !== cur.productgroup_id ||
    next.item_id !== cur.item_id ||
    next.name !== cur.name ||
    next.status !== cur.status ||
    next.weight_grams !== cur.weight_grams ||
    next.device_key !== cur.device_key ||
    !isDeepStrictEqual(next.look, cur.look);
  if (rowChanged) await w.updateProduct(tx, next);
  return { rowChanged, mediaChanged };
}

/** The rules of writing one product and its item's stock, shared by the import and product changes. */
export function productWriter(clock: Clock) {
  const emit = (tx: Executor, change: ProductChange) =>
    enqueue(tx, clock, PRODUCT_CHANGED_JOB, change, { organizationId: null });
  const audience = (privateOrg: string | null): string[] | 'all' => (privateOrg ? [privateOrg] : 'all');

  async function setStock(tx: Executor, item: ItemRow, logical: number, physical: number): Promise<boolean> {
    if (item.logical_quantity === logical && item.physical_quantity === physical) return false;
    await stockRepo.insertMovements(tx, [
      {
        item_id: item.id,
        kind: 'correct',
        logical_delta: logical - item.logical_quantity,
        physical_delta: physical - item.physical_quantity,
        logical_after: logical,
        physical_after: physical,
        order_id: null,
        reason: 'stock set by the catalog (import or set-stock)',
        created_at: clock.now(),
      },
    ]);
    await w.updateItem(tx, item.id, {
      sku: item.sku,
      organization_id: item.organization_id,
      logical_quantity: logical,
      physical_quantity: physical,
      at: clock.now(),
    });
    if (item.logical_quantity > 0 !== logical > 0) {
      for (const p of await w.productsOfItem(tx, item.id))
        await emit(tx, {
          productReference: p.id,
          organizationIds: audience(p.private_organization_id),
          stockCrossedZero: true,
        });
    }
    return true;
  }

  /** Creates or changes one product with its rules; emits the change events in the same transaction. */
  async function saveProduct(
    tx: Executor,
    cur: ProductRow | null,
    d: Desired,
    files: ProductFiles,
    item: ItemRow,
    where: string,
  ): Promise<{ id: string; outcome: Outcome }> {
    const now = clock.now();
    const print = checkProduct(cur, d, files, where);
    if (!cur) return { id: await createProduct(tx, d, files, item, print, now, where), outcome: 'created' };
    const { rowChanged, mediaChanged } = await changeProduct(tx, cur, d, files, print, now);
    if (cur.status !== d.status) {
      await emit(tx, {
        productReference: cur.id,
        organizationIds: audience(d.privateOrganizationId),
        status: { from: cur.status, to: d.status },
      });
    }
    return { id: cur.id, outcome: rowChanged || mediaChanged ? 'updated' : 'unchanged' };
  }

  return { setStock, saveProduct };
}

import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Static } from 'typebox';
import { type Executor, PG_DEADLOCK, PG_UNIQUE_VIOLATION, pgErrorCode } from '../../platform/db/index.ts';
import { badRequest, conflict, mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { deriveFromDevices } from './derive.ts';
import { checkDevices } from './devices.ts';
import { stockRepo } from './stock-repo.ts';
import { CATALOG_TOPIC } from './events.ts';
import { storeFiles } from './files.ts';
import { CASE_TYPES, isCaseType } from './casetypes.ts';
import { layerImages, printSpecFor } from './geometry.ts';
import { forwardOnly, stageOn } from './lifecycle.ts';
import { type PrintSpec, type ProductRow, type ProductView, catalogWrites as w } from './repo.ts';
import type { ImportDocument, ProductChange as ProductChangeBody, ProductStatus, StockIn } from './schemas.ts';
import type { CatalogDeps } from './deps.ts';
import { type Outcome, type PictureOf, type ProductFiles, allFiles, placeFiles, productWriter } from './writer.ts';
import { pictureFile, pictureSubject } from './pictures/index.ts';

type Doc = Static<typeof ImportDocument>;

export function catalogAdmin(
  deps: Pick<CatalogDeps, 'db' | 'clock' | 'cursors' | 'blobs' | 'changes' | 'organization'> & {
    detail: (id: string, view: ProductView) => Promise<Record<string, unknown>>;
  },
) {
  const { db, clock } = deps;

  /** Two writers racing for the same new key or rows: the loser is told to apply again, not a 500. */
  async function write<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    try {
      const result = await db.tx(async (tx) => {
        const out = await fn(tx);
        await deps.changes.announce(tx, CATALOG_TOPIC);
        return out;
      });
      deps.changes.changed(CATALOG_TOPIC);
      return result;
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === PG_UNIQUE_VIOLATION || code === PG_DEADLOCK)
        throw conflict(
          'catalog_conflict',
          'Another catalog change touched the same records at the same time; apply this change again',
        );
      throw err;
    }
  }
  const { setStock, saveProduct } = productWriter(clock);

  async function checkOrganization(ref: string | null | undefined, where: string): Promise<string | null> {
    if (ref === undefined || ref === null) return null;
    if (!isReference('Organization', ref)) throw badRequest(`${where} is not an organization reference`);
    if (!(await deps.organization.findOrganization(ref)))
      throw badRequest(`${where}: organization ${ref} does not exist`);
    return ref;
  }

  /** Stock lives on the item; every product of the item hears when it runs out or comes back. */ const count = () => ({
    created: 0,
    updated: 0,
    unchanged: 0,
  });

  async function importCatalog(doc: Doc, opts: { digest?: string } = {}) {
    const orgs = new Map<string, string | null>();
    const checkAll = async (list: Array<Record<string, unknown>> | undefined, field: string, kind: string) => {
      for (const [i, x] of (list ?? []).entries()) {
        const ref = x[field] as string | null | undefined;
        if (ref && !orgs.has(ref)) orgs.set(ref, await checkOrganization(ref, `body.${kind}[${i}].${field}`));
      }
    };
    await checkAll(doc.productgroups, 'privateOrganization', 'productgroups');
    await checkAll(doc.packagings, 'privateOrganization', 'packagings');
    await checkAll(doc.items, 'organization', 'items');
    for (const [kind, list, key] of [
      ['productgroups', doc.productgroups, 'code'],
      ['packagings', doc.packagings, 'code'],
      ['items', doc.items, 'sku'],
    ] as const) {
      const seen = new Set<string>();
      for (const [i, x] of (list ?? []).entries()) {
        const k = (x as Record<string, string>)[key];
        if (seen.has(k)) throw badRequest(`body.${kind}[${i}].${key} ${k} appears twice in the file`);
        seen.add(k);
        const ref = (x as { reference?: string }).reference;
        const resource = kind === 'productgroups' ? 'Productgroup' : kind === 'packagings' ? 'Packaging' : 'Item';
        if (ref !== undefined && !isReference(resource, ref))
          throw badRequest(`body.${kind}[${i}].reference is not a ${resource} reference`);
      }
    }
    const fileDevices = doc.devices ? checkDevices(doc.devices, 'body.devices') : [];
    const stored = new Map((await w.devices(db)).map((r) => [r.key, r.geometry]));
    const devices = new Map([...stored, ...fileDevices.map((d) => [d.key, d] as const)]);
    const fileGroups = new Map((doc.productgroups ?? []).map((g) => [g.code, g]));
    const caseTypeOf = async (key: string) => {
      const g = fileGroups.get(key);
      if (g && g.caseType !== undefined) return g.caseType;
      return (await w.productgroupByKey(db, key))?.case_type ?? null;
    };
    const derived = await deriveFromDevices(doc, { devices, caseType: caseTypeOf }, clock.now());
    const productFiles: ProductFiles[] = [];
    for (const [i, p] of (doc.products ?? []).entries()) {
      if (p.reference !== undefined && !isReference('Product', p.reference))
        throw badRequest(`body.products[${i}].reference is not a Product reference`);
      // A screen protector is drawn on the phone it fits.
      if (p.look?.accessory === 'screen-protector' && !p.device)
        throw badRequest(`body.products[${i}].look.accessory screen-protector needs the product's device`);
      const picture: PictureOf = async (view, format) => {
        const ct = await caseTypeOf(p.productgroup);
        const subject = pictureSubject({
          device: (p.device && devices.get(p.device)) || null,
          caseType: isCaseType(ct) ? CASE_TYPES[ct] : null,
          look: p.look ?? null,
        });
        return subject ? pictureFile(subject, view, format) : null;
      };
      productFiles.push(
        await placeFiles({ ...p, layers: p.layers ?? derived[i].layers }, `body.products[${i}]`, picture),
      );
    }
    await storeFiles(deps.blobs, productFiles.flatMap(allFiles));

    return write(async (tx) => {
      const now = clock.now();
      const summary = {
        devices: count(),
        productgroups: count(),
        packagings: count(),
        items: count(),
        products: count(),
      };
      for (const d of fileDevices) {
        const before = stored.get(d.key);
        if (before && isDeepStrictEqual(before, d)) {
          summary.devices.unchanged++;
          continue;
        }
        await w.upsertDevice(tx, d, now);
        summary.devices[before ? 'updated' : 'created']++;
      }
      const refs = {
        productgroups: {} as Record<string, string>,
        packagings: {} as Record<string, string>,
        items: {} as Record<string, string>,
        products: [] as Array<{
          reference: string;
          legacyItemSku: string;
          name: string;
          status: string;
          outcome: Outcome;
        }>,
      };
      const mismatch = (where: string, key: string, id: string, given: string) =>
        conflict('reference_mismatch', `${where}: ${key} belongs to ${id}, not ${given}`);

      for (const [i, g] of (doc.productgroups ?? []).entries()) {
        const priv = g.privateOrganization ? orgs.get(g.privateOrganization)! : null;
        const cur = await w.productgroup(tx, g.code, g.reference);
        if (cur && g.reference && cur.id !== g.reference)
          throw mismatch(`body.productgroups[${i}]`, g.code, cur.id, g.reference);
        const caseType = g.caseType === undefined ? (cur?.case_type ?? null) : g.caseType;
        if (!cur) {
          const id = g.reference ?? newReference('Productgroup');
          await w.insertProductgroup(tx, {
            id,
            code: g.code,
            name: g.name,
            price_cents: g.price,
            private_organization_id: priv,
            case_type: caseType,
            created_at: now,
            updated_at: now,
          });
          summary.productgroups.created++;
          refs.productgroups[g.code] = id;
          continue;
        }
        const same =
          cur.code === g.code &&
          cur.name === g.name &&
          cur.price_cents === g.price &&
          cur.private_organization_id === priv &&
          cur.case_type === caseType;
        if (!same)
          await w.updateProductgroup(tx, cur.id, {
            code: g.code,
            name: g.name,
            price_cents: g.price,
            private_organization_id: priv,
            case_type: caseType,
            at: now,
          });
        summary.productgroups[same ? 'unchanged' : 'updated']++;
        refs.productgroups[g.code] = cur.id;
      }

      for (const [i, p] of (doc.packagings ?? []).entries()) {
        const priv = p.privateOrganization ? orgs.get(p.privateOrganization)! : null;
        const cur = await w.packaging(tx, p.code, p.reference);
        if (cur && p.reference && cur.id !== p.reference)
          throw mismatch(`body.packagings[${i}]`, p.code, cur.id, p.reference);
        if (!cur) {
          const id = p.reference ?? newReference('Packaging');
          await w.insertPackaging(tx, {
            id,
            code: p.code,
            name: p.name,
            private_organization_id: priv,
            created_at: now,
            updated_at: now,
          });
          summary.packagings.created++;
          refs.packagings[p.code] = id;
          continue;
        }
        const same = cur.code === p.code && cur.name === p.name && cur.private_organization_id === priv;
        if (!same)
          await w.updatePackaging(tx, cur.id, { code: p.code, name: p.name, private_organization_id: priv, at: now });
        summary.packagings[same ? 'unchanged' : 'updated']++;
        refs.packagings[p.code] = cur.id;
      }

      for (const [i, it] of (doc.items ?? []).entries()) {
        const owner = it.organization ? orgs.get(it.organization)! : null;
        const cur = await w.item(tx, it.sku, it.reference);
        if (cur && it.reference && cur.id !== it.reference)
          throw mismatch(`body.items[${i}]`, it.sku, cur.id, it.reference);
        if (!cur) {
          const id = it.reference ?? newReference('Item');
          const logical = it.logicalQuantity ?? 0;
          await w.insertItem(tx, {
            id,
            organization_id: owner,
            sku: it.sku,
            logical_quantity: logical,
            physical_quantity: it.physicalQuantity ?? logical,
            created_at: now,
            updated_at: now,
          });
          // The ledger starts with the quantities the item came with.
          await stockRepo.insertMovements(tx, [
            {
              item_id: id,
              kind: 'receive',
              logical_delta: logical,
              physical_delta: it.physicalQuantity ?? logical,
              logical_after: logical,
              physical_after: it.physicalQuantity ?? logical,
              order_id: null,
              reason: 'initial stock (catalog import)',
              created_at: now,
            },
          ]);
          summary.items.created++;
          refs.items[it.sku] = id;
          continue;
        }
        let changed = false;
        if (cur.sku !== it.sku || cur.organization_id !== owner) {
          await w.updateItem(tx, cur.id, {
            sku: it.sku,
            organization_id: owner,
            logical_quantity: cur.logical_quantity,
            physical_quantity: cur.physical_quantity,
            at: now,
          });
          changed = true;
        }
        // Quantities left out of the file are live data the file does not own: they stay.
        const locked = (await w.lockItem(tx, cur.id))!;
        if (
          await setStock(
            tx,
            locked,
            it.logicalQuantity ?? locked.logical_quantity,
            it.physicalQuantity ?? locked.physical_quantity,
          )
        )
          changed = true;
        summary.items[changed ? 'updated' : 'unchanged']++;
        refs.items[it.sku] = cur.id;
      }

      for (const [i, p] of (doc.products ?? []).entries()) {
        const where = `body.products[${i}]`;
        const group = await w.productgroupByKey(tx, p.productgroup);
        if (!group)
          throw badRequest(`${where}.productgroup ${p.productgroup} is neither a productgroup code nor a reference`);
        const item = await w.itemByKey(tx, p.item);
        if (!item) throw badRequest(`${where}.item ${p.item} is neither a warehouse SKU nor an item reference`);
        let cur: ProductRow | null = p.reference ? await w.lockProduct(tx, p.reference) : null;
        if (!cur && p.legacyItemSku) {
          cur = await w.productByLegacySku(tx, p.legacyItemSku);
          if (cur && p.reference && cur.id !== p.reference)
            throw mismatch(where, `legacy SKU ${p.legacyItemSku}`, cur.id, p.reference);
        }
        // Without reference or legacy SKU, a product is known by its item and name.
        if (!cur && !p.reference && !p.legacyItemSku) cur = await w.productByItemAndName(tx, item.id, p.name);
        const from = derived[i];
        const saved = await saveProduct(
          tx,
          cur,
          {
            id: p.reference,
            productgroupId: group.id,
            itemId: item.id,
            privateOrganizationId: group.private_organization_id,
            name: p.name,
            legacySku: p.legacyItemSku,
            status: p.status ?? forwardOnly(cur?.status, from.stage!),
            printable: p.printable,
            weightGrams: p.weightGrams,
            created: p.created ? new Date(p.created) : undefined,
            print: p.print === undefined ? from.print : p.print,
            deviceKey: from.deviceKey,
            look: p.look,
          },
          productFiles[i],
          item,
          where,
        );
        summary.products[saved.outcome]++;
        const row = (await w.product(tx, saved.id))!;
        refs.products.push({
          reference: saved.id,
          legacyItemSku: row.legacy_item_sku,
          name: row.name,
          status: row.status,
          outcome: saved.outcome,
        });
      }
      if (opts.digest) await w.recordApplied(tx, opts.digest, now);
      return { summary, references: refs };
    });
  }

  /**
   * Applies a file unless this exact file was applied before (the demo seed runs on every start and
   * in every test; applying 500 unchanged products each time is wasted work, and would undo stock
   * changed since).
   */
  async function importCatalogOnce(doc: Doc): Promise<{ applied: boolean }> {
    const digest = createHash('sha256').update(JSON.stringify(doc)).digest('hex');
    if (await w.applied(db, digest)) return { applied: false };
    await importCatalog(doc, { digest });
    return { applied: true };
  }

  async function productView(ref: string) {
    return mustFind(isReference('Product', ref) ? await w.product(db, ref) : null, 'Product', ref);
  }

  const admin = {
    importCatalog,
    importCatalogOnce,

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
      return admin.operatorProduct(ref);
    },
    /**
     * Moves every product with a device to its stage on `catalogDate` (YYYY-MM-DD, default today;
     * forward only, with the usual events). A print product leaving `announced` without a print
     * specification gets one, and layers, from its device and case type.
     */
    async advanceLifecycle(catalogDate?: string) {
      const date = catalogDate ? new Date(`${catalogDate}T00:00:00Z`) : clock.now();
      const plan: Array<{ id: string; to: ProductStatus }> = [];
      const extra = new Map<string, { print: PrintSpec; files: ProductFiles }>();
      for (const r of await w.productsWithDevices(db)) {
        const to = forwardOnly(r.status, stageOn(r.geometry.releaseDate, date)) as ProductStatus;
        if (to === r.status) continue;
        plan.push({ id: r.id, to });
        if (!r.printable || r.print_spec || to === 'announced' || !isCaseType(r.case_type)) continue;
        const ct = CASE_TYPES[r.case_type];
        const images = r.has_layers ? {} : await layerImages(r.geometry, ct);
        const layers = Object.entries(images).map(([name, b]) => ({ name, file: { base64: b.toString('base64') } }));
        extra.set(r.id, {
          print: printSpecFor(r.geometry, ct),
          files: await placeFiles(r.has_layers ? {} : { layers }, `product ${r.id}`),
        });
      }
      await storeFiles(
        deps.blobs,
        [...extra.values()].flatMap((e) => allFiles(e.files)),
      );
      return write(async (tx) => {
        const moved: Array<{ reference: string; name: string; from: string; to: string }> = [];
        for (const { id, to } of plan) {
          const cur = (await w.lockProduct(tx, id))!;
          const target = forwardOnly(cur.status, to);
          if (target === cur.status) continue;
          const view = (await w.product(tx, id))!;
          const item = (await w.lockItem(tx, cur.item_id))!;
          const e = extra.get(id);
          await saveProduct(
            tx,
            cur,
            {
              productgroupId: cur.productgroup_id,
              itemId: cur.item_id,
              privateOrganizationId: view.private_organization_id,
              name: cur.name,
              status: target,
              printable: cur.printable,
              print: e?.print,
            },
            e?.files ?? {},
            item,
            `product ${id} (${cur.name})`,
          );
          moved.push({ reference: id, name: cur.name, from: cur.status, to: target });
        }
        return { catalogDate: date.toISOString().slice(0, 10), moved };
      });
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
    /** Any product with who may see it (operator view). */
    async operatorProduct(ref: string) {
      const view = await productView(ref);
      return {
        ...(await deps.detail(view.id, view)),
        privateOrganizationReference: view.private_organization_id,
        device: view.device_key,
        caseType: view.case_type,
        look: view.look,
      };
    },
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
  return admin;
}

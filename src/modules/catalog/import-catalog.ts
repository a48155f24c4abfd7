import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Static } from 'typebox';
import type { Executor } from '../../platform/db/index.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { AdminContext } from './admin-context.ts';
import { CASE_TYPES, isCaseType } from './casetypes.ts';
import { type Derived, deriveFromDevices } from './derive.ts';
import { type DeviceGeometry, checkDevices } from './devices.ts';
import { storeFiles } from './files.ts';
import { forwardOnly } from './lifecycle.ts';
import { pictureFile, pictureSubject } from './pictures/index.ts';
import { catalogWrites as w } from './admin-repo.ts';
import type { ProductRow } from './repo.ts';
import type { ImportDocument } from './schemas.ts';
import { stockRepo } from './stock-repo.ts';
import { type PictureOf, type ProductFiles, allFiles, placeFiles } from './product-files.ts';
import type { Outcome } from './writer.ts';

type Doc = Static<typeof ImportDocument>;
type Tally = Record<Outcome, number>;
const tally = (): Tally => ({ created: 0, updated: 0, unchanged: 0 });

/** A file read, checked and its pictures and files stored: what the transaction then applies. */
interface Prepared {
  doc: Doc;
  /** Organization references of the file, checked. */
  orgs: Map<string, string | null>;
  fileDevices: DeviceGeometry[];
  stored: Map<string, DeviceGeometry>;
  derived: Derived[];
  productFiles: ProductFiles[];
}

interface Applied {
  summary: Record<'devices' | 'productgroups' | 'packagings' | 'items' | 'products', Tally>;
  references: {
    productgroups: Record<string, string>;
    packagings: Record<string, string>;
    items: Record<string, string>;
    products: Array<{ reference: string; legacyItemSku: string; name: string; status: string; outcome: Outcome }>;
  };
}

const mismatch = (where: string, key: string, id: string, given: string) =>
  conflict('reference_mismatch', `${where}: ${key} belongs to ${id}, not ${given}`);

/**
 * The row a file's entry names (by its key, or its reference): created when there is none,
 * otherwise brought in line with the file. Returns its reference.
 */
async function upsert<Cur extends { id: string }>(
  u: {
    where: string;
    key: string;
    reference: string | undefined;
    resource: 'Productgroup' | 'Packaging' | 'Item';
    find(): Promise<Cur | null>;
    insert(id: string): Promise<void>;
    /** Brings the row in line with the file; true when anything changed. */
    update(cur: Cur): Promise<boolean>;
  },
  count: Tally,
): Promise<string> {
  const cur = await u.find();
  if (cur && u.reference && cur.id !== u.reference) throw mismatch(u.where, u.key, cur.id, u.reference);
  if (!cur) {
    const id = u.reference ?? newReference(u.resource);
    await u.insert(id);
    count.created++;
    return id;
  }
  count[(await u.update(cur)) ? 'updated' : 'unchanged']++;
  return cur.id;
}

/** Organizations exist; keys appear once; references are of the right kind. Nothing is written. */
async function checkDocument(ctx: AdminContext, doc: Doc): Promise<Map<string, string | null>> {
  const orgs = new Map<string, string | null>();
  const checkAll = async (list: Array<Record<string, unknown>> | undefined, field: string, kind: string) => {
    for (const [i, x] of (list ?? []).entries()) {
      const ref = x[field] as string | null | undefined;
      if (ref && !orgs.has(ref)) orgs.set(ref, await ctx.checkOrganization(ref, `body.${kind}[${i}].${field}`));
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
  return orgs;
}

/** Checks the file, derives what devices imply, and stores every product's files before the transaction. */
async function prepare(ctx: AdminContext, doc: Doc): Promise<Prepared> {
  const { db, clock, blobs } = ctx.deps;
  const orgs = await checkDocument(ctx, doc);
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
  await storeFiles(blobs, productFiles.flatMap(allFiles));
  return { doc, orgs, fileDevices, stored, derived, productFiles };
}

async function applyDevices(tx: Executor, p: Prepared, now: Date, count: Tally): Promise<void> {
  for (const d of p.fileDevices) {
    const before = p.stored.get(d.key);
    if (before && isDeepStrictEqual(before, d)) {
      count.unchanged++;
      continue;
    }
    await w.upsertDevice(tx, d, now);
    count[before ? 'updated' : 'created']++;
  }
}

async function applyProductgroups(tx: Executor, p: Prepared, now: Date, out: Applied): Promise<void> {
  for (const [i, g] of (p.doc.productgroups ?? []).entries()) {
    const priv = g.privateOrganization ? p.orgs.get(g.privateOrganization)! : null;
    const fields = (cur: { case_type: string | null } | null) => ({
      code: g.code,
      name: g.name,
      price_cents: g.price,
      private_organization_id: priv,
      case_type: g.caseType === undefined ? (cur?.case_type ?? null) : g.caseType,
    });
    out.references.productgroups[g.code] = await upsert(
      {
        where: `body.productgroups[${i}]`,
        key: g.code,
        reference: g.reference,
        resource: 'Productgroup',
        find: () => w.productgroup(tx, g.code, g.reference),
        insert: (id) => w.insertProductgroup(tx, { id, ...fields(null), created_at: now, updated_at: now }),
        async update(cur) {
          const want = fields(cur);
          const same =
            cur.code === want.code &&
            cur.name === want.name &&
            cur.price_cents === want.price_cents &&
            cur.private_organization_id === want.private_organization_id &&
            cur.case_type === want.case_type;
          if (!same) await w.updateProductgroup(tx, cur.id, { ...want, at: now });
          return !same;
        },
      },
      out.summary.productgroups,
    );
  }
}

async function applyPackagings(tx: Executor, p: Prepared, now: Date, out: Applied): Promise<void> {
  for (const [i, pk] of (p.doc.packagings ?? []).entries()) {
    const want = {
      code: pk.code,
      name: pk.name,
      private_organization_id: pk.privateOrganization ? p.orgs.get(pk.privateOrganization)! : null,
    };
    out.references.packagings[pk.code] = await upsert(
      {
        where: `body.packagings[${i}]`,
        key: pk.code,
        reference: pk.reference,
        resource: 'Packaging',
        find: () => w.packaging(tx, pk.code, pk.reference),
        insert: (id) => w.insertPackaging(tx, { id, ...want, created_at: now, updated_at: now }),
        async update(cur) {
          const same =
            cur.code === want.code &&
            cur.name === want.name &&
            cur.private_organization_id === want.private_organization_id;
          if (!same) await w.updatePackaging(tx, cur.id, { ...want, at: now });
          return !same;
        },
      },
      out.summary.packagings,
    );
  }
}

async function applyItems(ctx: AdminContext, tx: Executor, p: Prepared, now: Date, out: Applied): Promise<void> {
  for (const [i, it] of (p.doc.items ?? []).entries()) {
    const owner = it.organization ? p.orgs.get(it.organization)! : null;
    out.references.items[it.sku] = await upsert(
      {
        where: `body.items[${i}]`,
        key: it.sku,
        reference: it.reference,
        resource: 'Item',
        find: () => w.item(tx, it.sku, it.reference),
        async insert(id) {
          const logical = it.logicalQuantity ?? 0;
          const physical = it.physicalQuantity ?? logical;
          await w.insertItem(tx, {
            id,
            organization_id: owner,
            sku: it.sku,
            logical_quantity: logical,
            physical_quantity: physical,
            created_at: now,
            updated_at: now,
          });
          // The ledger starts with the quantities the item came with.
          await stockRepo.insertMovements(tx, [
            {
              item_id: id,
              kind: 'receive',
              logical_delta: logical,
              physical_delta: physical,
              logical_after: logical,
              physical_after: physical,
              order_id: null,
              reason: 'initial stock (catalog import)',
              created_at: now,
            },
          ]);
        },
        async update(cur) {
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
          const logical = it.logicalQuantity ?? locked.logical_quantity;
          if (await ctx.setStock(tx, locked, logical, it.physicalQuantity ?? locked.physical_quantity)) changed = true;
          return changed;
        },
      },
      out.summary.items,
    );
  }
}

async function applyProducts(ctx: AdminContext, tx: Executor, p: Prepared, out: Applied): Promise<void> {
  for (const [i, pr] of (p.doc.products ?? []).entries()) {
    const where = `body.products[${i}]`;
    const group = await w.productgroupByKey(tx, pr.productgroup);
    if (!group)
      throw badRequest(`${where}.productgroup ${pr.productgroup} is neither a productgroup code nor a reference`);
    const item = await w.itemByKey(tx, pr.item);
    if (!item) throw badRequest(`${where}.item ${pr.item} is neither a warehouse SKU nor an item reference`);
    let cur: ProductRow | null = pr.reference ? await w.lockProduct(tx, pr.reference) : null;
    if (!cur && pr.legacyItemSku) {
      cur = await w.productByLegacySku(tx, pr.legacyItemSku);
      if (cur && pr.reference && cur.id !== pr.reference)
        throw mismatch(where, `legacy SKU ${pr.legacyItemSku}`, cur.id, pr.reference);
    }
    // Without reference or legacy SKU, a product is known by its item and name.
    if (!cur && !pr.reference && !pr.legacyItemSku) cur = await w.productByItemAndName(tx, item.id, pr.name);
    const from = p.derived[i];
    const saved = await ctx.saveProduct(
      tx,
      cur,
      {
        id: pr.reference,
        productgroupId: group.id,
        itemId: item.id,
        privateOrganizationId: group.private_organization_id,
        name: pr.name,
        legacySku: pr.legacyItemSku,
        status: pr.status ?? forwardOnly(cur?.status, from.stage!),
        printable: pr.printable,
        weightGrams: pr.weightGrams,
        created: pr.created ? new Date(pr.created) : undefined,
        print: pr.print === undefined ? from.print : pr.print,
        deviceKey: from.deviceKey,
        look: pr.look,
      },
      p.productFiles[i],
      item,
      where,
    );
    out.summary.products[saved.outcome]++;
    const row = (await w.product(tx, saved.id))!;
    out.references.products.push({
      reference: saved.id,
      legacyItemSku: row.legacy_item_sku,
      name: row.name,
      status: row.status,
      outcome: saved.outcome,
    });
  }
}

/** A catalog file applied as one transaction: devices, productgroups, packagings, items, products. */
export function catalogImport(ctx: AdminContext) {
  const { db, clock } = ctx.deps;

  async function importCatalog(doc: Doc, opts: { digest?: string } = {}) {
    const prepared = await prepare(ctx, doc);
    return ctx.write(async (tx) => {
      const now = clock.now();
      const out: Applied = {
        summary: {
          devices: tally(),
          productgroups: tally(),
          packagings: tally(),
          items: tally(),
          products: tally(),
        },
        references: { productgroups: {}, packagings: {}, items: {}, products: [] },
      };
      await applyDevices(tx, prepared, now, out.summary.devices);
      await applyProductgroups(tx, prepared, now, out);
      await applyPackagings(tx, prepared, now, out);
      await applyItems(ctx, tx, prepared, now, out);
      await applyProducts(ctx, tx, prepared, out);
      if (opts.digest) await w.recordApplied(tx, opts.digest, now);
      return out;
    });
  }

  return {
    importCatalog,
    /**
     * Applies a file unless this exact file was applied before (the demo seed runs on every start
     * and in every test; applying 500 unchanged products each time is wasted work, and would undo
     * stock changed since).
     */
    async importCatalogOnce(doc: Doc): Promise<{ applied: boolean }> {
      const digest = createHash('sha256').update(JSON.stringify(doc)).digest('hex');
      if (await w.applied(db, digest)) return { applied: false };
      await importCatalog(doc, { digest });
      return { applied: true };
    },
  };
}

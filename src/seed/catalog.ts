import { createHash } from 'node:crypto';
import { CASE_TYPES, CASE_TYPE_KEYS, type CaseTypeKey } from '../modules/catalog/casetypes.ts';
import { type DeviceGeometry, loadDevices } from '../modules/catalog/devices.ts';
import { stageOn } from '../modules/catalog/lifecycle.ts';
import type { ImportDocument, ProductStatus } from '../modules/catalog/schemas.ts';
import type { Static } from '../platform/http/schemas.ts';
import { SUFFIXED_SKU_FROM } from '../modules/catalog/writer.ts';
import type { SeedDeps } from './deps.ts';
import type { AccessoryKind } from '../modules/catalog/look.ts';

/**
 * The day the demo catalog's lifecycle stages are computed for. Fixed, so the demo and the tests
 * that clone it do not drift with the wall clock; an operator's own file sets `catalogDate` (or
 * leaves it out for today).
 */
export const DEMO_CATALOG_DATE = '2026-11-24';

const GROUPS: Array<{ code: string; name: string; price: number; caseType?: CaseTypeKey }> = [
  { code: 'clear-cases', name: 'Clear cases', price: 1495, caseType: 'clear' },
  { code: 'tough-cases', name: 'Tough matte cases', price: 1995, caseType: 'tough' },
  { code: 'magsafe-cases', name: 'MagSafe-compatible cases', price: 2495, caseType: 'magsafe' },
  { code: 'leather-cases', name: 'Leather cases', price: 2995, caseType: 'leather' },
  { code: 'wallet-cases', name: 'Wallet book cases', price: 2795, caseType: 'wallet' },
  { code: 'screen-protectors', name: 'Screen protectors', price: 799 },
  { code: 'chargers', name: 'Chargers', price: 2495 },
  { code: 'straps', name: 'Phone straps', price: 1295 },
];
const TYPE_SKU: Record<CaseTypeKey, string> = {
  clear: 'CLR',
  tough: 'TGH',
  magsafe: 'MAG',
  leather: 'LTH',
  wallet: 'WLT',
};

/** Accessories that fit every phone: no device, their own stage. */
const ACCESSORIES: Array<{
  sku: string;
  name: string;
  group: string;
  weightGrams: number;
  created: string;
  look: { accessory: AccessoryKind; colorHex?: string };
}> = [
  {
    sku: 'CHRG-USBC-20W',
    name: '20W USB-C Charger',
    group: 'chargers',
    weightGrams: 60,
    created: '2024-02-01',
    look: { accessory: 'wall-charger', colorHex: '#f4f4f2' },
  },
  {
    sku: 'CHRG-USBC-45W',
    name: '45W USB-C PD Charger',
    group: 'chargers',
    weightGrams: 95,
    created: '2025-01-15',
    look: { accessory: 'wall-charger', colorHex: '#34363b' },
  },
  {
    sku: 'CHRG-MAG-15W',
    name: 'MagSafe 15W Wireless Charger',
    group: 'chargers',
    weightGrams: 70,
    created: '2026-05-04',
    look: { accessory: 'wireless-charger' },
  },
  {
    sku: 'STRP-XBDY-BLK',
    name: 'Crossbody Phone Strap Black',
    group: 'straps',
    weightGrams: 40,
    created: '2025-03-10',
    look: { accessory: 'crossbody-strap', colorHex: '#2f3136' },
  },
  {
    sku: 'STRP-XBDY-SND',
    name: 'Crossbody Phone Strap Sand',
    group: 'straps',
    weightGrams: 40,
    created: '2025-03-10',
    look: { accessory: 'crossbody-strap', colorHex: '#cdb896' },
  },
  {
    sku: 'STRP-WRIST-BDS',
    name: 'Beaded Wrist Strap',
    group: 'straps',
    weightGrams: 25,
    created: '2026-06-01',
    look: { accessory: 'wrist-strap', colorHex: '#c9a27e' },
  },
];

/** Short SKU code of a device: iphone-15-pro-max → IP15PROMAX, galaxy-s24-plus → S24PLUS. */
export function deviceCode(key: string): string {
  const [brand, ...rest] = key.split('-');
  const prefix: Record<string, string> = {
    iphone: 'IP',
    galaxy: '',
    pixel: 'PX',
    oneplus: 'OP',
    xiaomi: 'XM',
    redmi: 'RM',
    fairphone: 'FP',
  };
  return `${prefix[brand] ?? brand.toUpperCase()}${rest.join('').toUpperCase()}`;
}

type Doc = Static<typeof ImportDocument>;
type ItemIn = NonNullable<Doc['items']>[number];
type ProductIn = NonNullable<Doc['products']>[number];

const DAY = 86_400_000;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
/** A case goes into the catalog four months before its phone comes out (never after the catalog date). */
const createdOf = (d: DeviceGeometry) =>
  `${isoDay(Math.min(Date.parse(d.releaseDate) - 120 * DAY, Date.parse(DEMO_CATALOG_DATE) - DAY))}T09:00:00Z`;

/** Deterministic stock per stage: the same SKU always gets the same quantity. */
function stockOf(sku: string, stage: ProductStatus): { logicalQuantity: number; physicalQuantity: number } {
  const h = createHash('sha256').update(sku).digest().readUInt32BE(0);
  const logical =
    stage === 'launched'
      ? 40 + (h % 900)
      : stage === 'prelaunched'
        ? 300 + (h % 500)
        : stage === 'sunsetted'
          ? h % 3 === 0
            ? 0
            : h % 40
          : 0;
  return { logicalQuantity: logical, physicalQuantity: logical + (logical ? h % 13 : 0) };
}

// Every product with a device or a look has its drawn pictures (back.webp, angle.webp, side.webp); a few
// also carry them as files of their own, the way an operator pins a picture in a catalog file.
const caseMedia = () => [
  { name: 'front.png', kind: 'example_image' as const, file: { picture: { view: 'back' } } },
  { name: 'lifestyle.jpg', kind: 'example_render' as const, file: { picture: { view: 'angle' } } },
];
const WITH_MEDIA = new Set(['iPhone 15 Clear Case', 'Galaxy S27 Clear Case']);

/** Every device in every case type, each on an item of its own. */
function addCases(devices: DeviceGeometry[], catalogDate: Date, items: ItemIn[], products: ProductIn[]): void {
  for (const d of devices) {
    const stage = stageOn(d.releaseDate, catalogDate);
    const code = deviceCode(d.key);
    for (const type of CASE_TYPE_KEYS) {
      const ct = CASE_TYPES[type];
      const sku = `CASE-${code}-${TYPE_SKU[type]}`;
      const name = `${d.model} ${ct.label}`;
      items.push({ sku, ...stockOf(sku, stage) });
      products.push({
        name,
        productgroup: GROUPS.find((g) => g.caseType === type)!.code,
        item: sku,
        device: d.key,
        printable: true,
        weightGrams: ct.weightGrams,
        created: createdOf(d),
        ...(WITH_MEDIA.has(name) ? { media: caseMedia() } : {}),
      });
    }
  }
}

/**
 * One screen protector fits every phone of the same brand and front size. Products created before
 * the 2026-03-22 cut-over carry their item's SKU as legacy SKU, so only one of those per item: a
 * second older one keeps its own item, later ones join (and get `P<nnn>`).
 */
function addScreenProtectors(
  devices: DeviceGeometry[],
  catalogDate: Date,
  items: ItemIn[],
  products: ProductIn[],
): void {
  const bySize = new Map<string, DeviceGeometry[]>();
  for (const d of devices) {
    const k = `${d.brand}/${d.body.widthMm.toFixed(1)}x${d.body.heightMm.toFixed(1)}`;
    bySize.set(k, [...(bySize.get(k) ?? []), d]);
  }
  for (const fits of bySize.values()) {
    const shared = `PROT-${deviceCode(fits[0].key)}-GLS`;
    const members = new Map<string, DeviceGeometry[]>();
    for (const d of fits) {
      const old = new Date(createdOf(d)) < SUFFIXED_SKU_FROM;
      const sku = old && members.has(shared) ? `PROT-${deviceCode(d.key)}-GLS` : shared;
      members.set(sku, [...(members.get(sku) ?? []), d]);
    }
    for (const [sku, list] of members) {
      const newest = list.reduce((a, b) => (a.releaseDate > b.releaseDate ? a : b));
      items.push({ sku, ...stockOf(sku, stageOn(newest.releaseDate, catalogDate)) });
      for (const d of list)
        products.push({
          name: `${d.model} Tempered Glass Screen Protector`,
          productgroup: 'screen-protectors',
          item: sku,
          device: d.key,
          printable: false,
          weightGrams: 20,
          created: createdOf(d),
          look: { accessory: 'screen-protector' },
        });
    }
  }
}

/** Chargers and straps, launched. */
function addAccessories(items: ItemIn[], products: ProductIn[]): void {
  for (const a of ACCESSORIES) {
    items.push({ sku: a.sku, ...stockOf(a.sku, 'launched') });
    products.push({
      name: a.name,
      productgroup: a.group,
      item: a.sku,
      status: 'launched',
      printable: false,
      weightGrams: a.weightGrams,
      created: `${a.created}T09:00:00Z`,
      look: a.look,
    });
  }
}

/**
 * The demo catalog as a catalog file, applied with the same import operators use (so it is
 * idempotent): every device of the device table in every case type, a screen protector per screen
 * size (devices of one screen size share its item), chargers and straps; stages follow from the
 * release dates on DEMO_CATALOG_DATE. The demo organizations add a private leather collection on
 * stock the first one stores with us (two products on one item) and a private slim case.
 */
export function demoCatalog(firstOrg: string, secondOrg: string): Doc {
  const devices = loadDevices();
  const catalogDate = new Date(`${DEMO_CATALOG_DATE}T00:00:00Z`);
  const items: ItemIn[] = [];
  const products: ProductIn[] = [];

  addCases(devices, catalogDate, items, products);
  addScreenProtectors(devices, catalogDate, items, products);
  addAccessories(items, products);

  // Applied oldest first, so the product list's "newest first" (creation order) is the catalog's.
  products.sort((a, b) => (a.created ?? '').localeCompare(b.created ?? ''));
  return {
    catalogDate: DEMO_CATALOG_DATE,
    productgroups: [
      ...GROUPS.map((g) => ({ code: g.code, name: g.name, price: g.price, caseType: g.caseType ?? null })),
      {
        code: 'demo-cases-leather',
        name: 'Demo Cases leather collection',
        price: 2495,
        caseType: 'leather' as const,
        privateOrganization: firstOrg,
      },
      // Stock a partner stores with the service is sold only by that partner.
      {
        code: 'other-prints-slim',
        name: 'Other Prints slim cases',
        price: 1295,
        caseType: 'clear' as const,
        privateOrganization: secondOrg,
      },
    ],
    packagings: [
      { code: 'standard-sleeve', name: 'Standard sleeve' },
      { code: 'gift-box', name: 'Gift box' },
      { code: 'demo-cases-branded-box', name: 'Demo Cases branded box', privateOrganization: firstOrg },
    ],
    items: [
      ...items,
      { sku: 'DEMO-IP15-LTH', organization: firstOrg, logicalQuantity: 40, physicalQuantity: 42 },
      { sku: 'OTHER-S24-SLM', organization: secondOrg, logicalQuantity: 75, physicalQuantity: 75 },
    ],
    products: [
      ...products.filter((p) => (p.created ?? '') < '2026-04-10'),
      {
        name: 'Demo Walnut Leather Case iPhone 15',
        productgroup: 'demo-cases-leather',
        item: 'DEMO-IP15-LTH',
        device: 'iphone-15',
        printable: true,
        weightGrams: 52,
        created: '2026-04-10T09:00:00Z',
        media: caseMedia(),
        look: { colour: { name: 'Walnut', hex: '#6b4a3a' } },
      },
      {
        name: 'Demo Sand Leather Case iPhone 15',
        productgroup: 'demo-cases-leather',
        item: 'DEMO-IP15-LTH',
        device: 'iphone-15',
        printable: true,
        weightGrams: 52,
        created: '2026-04-11T09:00:00Z',
        look: { colour: { name: 'Sand', hex: '#c9b28f' } },
      },
      // A tough case whose bumper and camera rim are moulded in a colour of their own.
      {
        name: 'iPhone 15 Tough Case Graphite and Orange',
        productgroup: 'tough-cases',
        item: 'CASE-IP15-TGH',
        device: 'iphone-15',
        printable: true,
        weightGrams: CASE_TYPES.tough.weightGrams,
        created: '2026-04-12T09:00:00Z',
        look: { colour: { name: 'Graphite/Orange', hex: '#2b2d31', bezelHex: '#f26b1d', cameraRingHex: '#f26b1d' } },
      },
      {
        name: 'Galaxy S24 Slim Case',
        productgroup: 'other-prints-slim',
        item: 'OTHER-S24-SLM',
        device: 'galaxy-s24',
        printable: true,
        weightGrams: 30,
        created: '2026-04-15T09:00:00Z',
      },
      ...products.filter((p) => (p.created ?? '') >= '2026-04-10'),
    ],
  };
}

/** Applies the demo catalog; `orgIds` are the demo organizations in seed order. */
export async function seedCatalog(s: Pick<SeedDeps, 'catalog'>, orgIds: string[]): Promise<void> {
  await s.catalog.importCatalogOnce(demoCatalogFile(orgIds));
}

/** The device table and the demo catalog as one catalog file. */
export const demoCatalogFile = (orgIds: string[]): Doc => ({
  devices: loadDevices(),
  ...demoCatalog(orgIds[0], orgIds[1]),
});

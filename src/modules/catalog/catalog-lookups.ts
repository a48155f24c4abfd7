import { mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import { catalogWrites } from './admin-repo.ts';
import { CASE_TYPES, type CaseType, isCaseType } from './casetypes.ts';
import type { CatalogDeps } from './deps.ts';
import type { DeviceGeometry } from './devices.ts';
import { type Colourway, inColourway } from './look.ts';
import type { productCache } from './product-cache.ts';
import { type OrderableProduct, toOrderable, toPackaging, toProductgroup } from './product-views.ts';
import { type ProductView, catalogReads as reads } from './repo.ts';

/** A product's device and case type (null when it has none). */
export interface ProductShape {
  device: DeviceGeometry | null;
  caseType: CaseType | null;
  /** The case's colourway (`look.colour`), or null. */
  colour: Colourway | null;
}

/** What other modules (orders, rendering, webhooks, the seed) look up in the catalog. */
export function catalogLookups(deps: Pick<CatalogDeps, 'db'>, cache: ReturnType<typeof productCache>) {
  const { db } = deps;
  return {
    /** The product row the organization can see, or a 404. */
    async visibleRow(orgId: string, ref: string): Promise<ProductView> {
      return mustFind(isReference('Product', ref) ? await reads.product(db, orgId, ref) : null, 'Product', ref);
    },
    /** The visible ones among `references`; unknown, malformed or invisible ones are absent. */
    async orderableProducts(orgId: string, references: string[]): Promise<Map<string, OrderableProduct>> {
      return new Map((await cache.visibleProducts(orgId, references)).map((c) => [c.view.id, toOrderable(c.view)]));
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
    /** Every product the organization can see, archived included (the demo seed lists them). */
    async productSummaries(orgId: string) {
      return (await reads.allProducts(db, orgId)).map((p) => ({
        reference: p.id,
        name: p.name,
        status: p.status,
        printable: p.printable,
      }));
    },
  };
}

import type { Executor } from '../../platform/db/index.ts';
import type { DeviceGeometry } from './devices.ts';
import { type ListPicture, listPicture } from './product-pictures.ts';
import { type CatalogFilter, searchRepo as repo } from './search-repo.ts';

export type { CatalogFilter } from './search-repo.ts';

/**
 * One product the operator's search found, with what its row in the list shows: read in the one
 * search query, with no picture drawn (a drawn thumbnail is drawn when the browser asks for it).
 */
export interface CatalogHit {
  reference: string;
  name: string;
  legacyItemSKU: string;
  status: string;
  availableQuantity: number;
  privateOrganizationReference: string | null;
  /** The device model it fits, and that device's brand; null for products that fit none. */
  device: string | null;
  brand: string | null;
  caseType: string | null;
  picture: ListPicture | null;
}

/** What the operator's catalog search can be narrowed by. */
export interface CatalogFacets {
  brands: string[];
  /** Each device's key and its brand and model, newest release of a brand first. */
  devices: Array<{ key: string; label: string }>;
  caseTypes: string[];
}

/** What a drawing of a device product needs. */
export interface ProductDrawing {
  name: string;
  geometry: DeviceGeometry;
  caseType: string | null;
}

/** The operator's catalog search (the console's catalog page) and its product drawings. */
export function operatorSearch(db: Executor) {
  return {
    /** Products matching the filter, newest first: up to `limit`, and one more when there are more. */
    async searchCatalog(f: CatalogFilter): Promise<CatalogHit[]> {
      return (await repo.search(db, f)).map((r) => ({
        reference: r.id,
        name: r.name,
        legacyItemSKU: r.legacy_item_sku,
        status: r.status,
        availableQuantity: Math.max(0, r.logical_quantity),
        privateOrganizationReference: r.private_organization_id,
        device: r.device,
        brand: r.brand,
        caseType: r.case_type,
        picture: listPicture(r, r.picture),
      }));
    },
    async catalogFacets(): Promise<CatalogFacets> {
      const f = await repo.facets(db);
      return {
        brands: f.brands.map((x) => x.v),
        devices: f.devices.map((x) => ({ key: x.v, label: x.label })),
        caseTypes: f.caseTypes.map((x) => x.v),
      };
    },
    /** Null for a product that fits no device, or none with this reference. */
    async productDrawing(ref: string): Promise<ProductDrawing | null> {
      const row = await repo.shape(db, ref);
      return row && { name: row.name, geometry: row.geometry, caseType: row.case_type };
    },
  };
}

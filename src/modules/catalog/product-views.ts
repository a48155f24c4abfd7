import type { MediaRow, PackagingRow, ProductView, ProductgroupRow } from './repo.ts';
import { CASE_TYPES, isCaseType } from './casetypes.ts';
import { pictureSubject } from './pictures/index.ts';
import { printSpecOf } from './print-spec.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What other modules (orders, rendering, webhooks) get to know about a product. */
export interface OrderableProduct {
  reference: string;
  name: string;
  /** The product's own SKU (its legacyItemSKU), as invoices name it. */
  sku: string;
  status: string;
  printable: boolean;
  priceCents: number;
  weightGrams: number;
  productgroupReference: string;
}

export const toOrderable = (p: ProductView): OrderableProduct => ({
  reference: p.id,
  name: p.name,
  sku: p.legacy_item_sku,
  status: p.status,
  printable: p.printable,
  priceCents: p.price_cents,
  weightGrams: p.weight_grams,
  productgroupReference: p.productgroup_id,
});

export const toProductgroup = (g: ProductgroupRow) => ({
  reference: g.id,
  name: g.name,
  private: g.private_organization_id !== null,
  price: g.price_cents,
});
export const toPackaging = (p: PackagingRow) => ({
  reference: p.id,
  name: p.name,
  private: p.private_organization_id !== null,
});

/** What a product's pictures show, from its row (null: it has none). */
export const subjectOf = (p: ProductView) =>
  pictureSubject({
    device: p.device_geometry,
    caseType: isCaseType(p.case_type) ? CASE_TYPES[p.case_type] : null,
    look: p.look,
  });

/** A product as the list and the detail answer it; media URLs are absolute, under `publicBaseUrl`. */
export function productViews(publicBaseUrl: string) {
  const mediaUrl = (productId: string, filename: string) =>
    `${publicBaseUrl}/v2/products/${productId}/media/${encodeURIComponent(filename)}`;

  const toListItem = (p: ProductView) => {
    const print = printSpecOf(p);
    return {
      reference: p.id,
      legacyItemSKU: p.legacy_item_sku,
      name: p.name,
      status: p.status,
      availableQuantity: Math.max(0, p.logical_quantity),
      layersModified: iso(p.layers_modified),
      printModified: iso(p.print_modified),
      printable: p.printable,
      productgroupReference: p.productgroup_id,
      price: p.price_cents,
      weightGrams: p.weight_grams,
      print: print
        ? {
            modified: (p.print_modified ?? p.created_at).toISOString(),
            ...print,
          }
        : null,
      created: p.created_at.toISOString(),
    };
  };

  /** Extension field of the detail: the case's colourway (shell or leather), imported with the catalog. */
  const colourOf = (p: ProductView) => p.look?.colour ?? null;

  const toDetail = (p: ProductView, media: MediaRow[]) => ({
    ...toListItem(p),
    colour: colourOf(p),
    layers: {
      modified: iso(p.layers_modified),
      images: media
        .filter((m) => m.kind === 'layer')
        .map((m) => ({
          name: m.name,
          url: mediaUrl(p.id, m.filename),
          modified: m.modified_at.toISOString(),
        })),
    },
    media: media
      .filter((m) => m.kind !== 'layer')
      .map((m) => ({
        filename: m.filename,
        kind: m.kind,
        url: mediaUrl(p.id, m.filename),
        contentType: m.content_type,
        size: m.size,
        width: m.width,
        height: m.height,
        modified: m.modified_at.toISOString(),
      })),
  });
  return { toListItem, toDetail };
}

export type ProductDetail = ReturnType<ReturnType<typeof productViews>['toDetail']>;

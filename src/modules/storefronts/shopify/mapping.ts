import type { ShopifyAddress, ShopifyOrder } from './payloads.ts';

/**
 * How a Shopify order becomes one of ours. Every mapping here is documented in docs/shopify.md.
 */

/** A variant SKU this service set: the product, and the artwork for print products. */
const SKU = /^(Product_[0-9a-z]{26})(?:\.(Image_[0-9a-z]{26}))?$/;

export function variantSku(productRef: string, imageRef: string | null): string {
  return imageRef ? `${productRef}.${imageRef}` : productRef;
}

export function parseSku(sku: string | null | undefined): { productReference: string; imageReference?: string } | null {
  const m = sku ? SKU.exec(sku) : null;
  if (!m) return null;
  return m[2] ? { productReference: m[1], imageReference: m[2] } : { productReference: m[1] };
}

export type ShippingLevel = 'basic' | 'tracked' | 'express';

/**
 * The minimal shipping level from the shipping line the buyer chose: a title or code naming express
 * (or next day, overnight, priority) asks for express, one naming tracked (or signature, registered)
 * for tracked, anything else for basic. The service may still raise it (value and weight rules).
 */
export function shippingLevelOf(lines: ShopifyOrder['shipping_lines']): ShippingLevel {
  const text = (lines ?? []).map((l) => `${l.title ?? ''} ${l.code ?? ''}`.toLowerCase()).join(' ');
  if (/express|next[ -]?day|overnight|priority/.test(text)) return 'express';
  if (/tracked|tracking|signature|registered/.test(text)) return 'tracked';
  return 'basic';
}

const PHONE = /^\+?[0-9 ()./-]{4,20}$/;

/** Splits "123 Main Street" and "Prinsengracht 263-1" into street and house number. */
function street(address1: string): { streetname: string; housenumber?: string } {
  const trimmed = address1.trim();
  const first = /^(\d+[a-zA-Z]?)[,\s]+(.+)$/.exec(trimmed);
  if (first) return { streetname: first[2], housenumber: first[1] };
  const last = /^(.+?)\s+(\d+[\w/-]{0,9})$/.exec(trimmed);
  if (last) return { streetname: last[1], housenumber: last[2] };
  return { streetname: trimmed };
}

/** The dropship address, in the API's field names; the order's e-mail when the address has none. */
export function addressOf(a: ShopifyAddress, email: string | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (k: string, v: string | null | undefined) => {
    if (typeof v === 'string' && v.trim()) out[k] = v.trim();
  };
  put('firstname', a.first_name);
  put('lastname', a.last_name);
  put('company', a.company);
  if (a.address1) {
    const s = street(a.address1);
    put('streetname', s.streetname);
    put('housenumber', s.housenumber);
  }
  put('additionalInfo', a.address2);
  put('zipcode', a.zip);
  put('city', a.city);
  put('state', a.province_code ?? a.province);
  put('countryCode', a.country_code);
  // A phone number a carrier cannot dial (Shopify accepts free text) is left out rather than refused.
  if (a.phone && PHONE.test(a.phone.trim())) put('phonenumber', a.phone);
  put('email', email);
  return out;
}

export interface MappedLine {
  productReference: string;
  imageReference?: string;
  quantity: number;
  /** Shopify's line item, kept as an annotation for support. */
  upstreamLineId: string | null;
}

/** The lines whose SKU is one of ours; the others belong to the merchant's other suppliers. */
export function ourLines(
  items: Array<{ sku?: string | null; quantity: number; admin_graphql_api_id?: string }>,
): MappedLine[] {
  const out: MappedLine[] = [];
  for (const item of items) {
    const parsed = parseSku(item.sku);
    if (!parsed || item.quantity < 1) continue;
    out.push({ ...parsed, quantity: item.quantity, upstreamLineId: item.admin_graphql_api_id ?? null });
  }
  return out;
}

/** `gid://shopify/Order/123` → `123`. */
export const numericId = (gid: string) => gid.slice(gid.lastIndexOf('/') + 1);

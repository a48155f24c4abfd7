import type { ProductionDeps } from './deps.ts';
import type { ShipmentDocInput } from './documents.ts';
import { FileProblem } from './made-files.ts';

export type DocumentInputDeps = Pick<
  ProductionDeps,
  'db' | 'blobs' | 'config' | 'catalog' | 'orders' | 'organization' | 'shipments'
>;

const isHexColor = (s: string | null | undefined): s is string => !!s && /^#[0-9a-fA-F]{6}$/.test(s);

const LOGO_FILE = /^\/brand-logos\/([0-9a-hjkmnp-tv-z]{26}\.png)$/;

async function logoOf(deps: DocumentInputDeps, url: string | null): Promise<Buffer | null> {
  // Only logos uploaded to this service are read: a partner's own URL is not fetched by a job.
  if (!url?.startsWith(deps.config.publicBaseUrl)) return null;
  const m = LOGO_FILE.exec(url.slice(deps.config.publicBaseUrl.length));
  return m ? deps.blobs.get(`brand-logos/${m[1]}`) : null;
}

/** What the label and the packing slip of a shipment show: its brand, addresses, orders and lines. */
export async function documentInput(
  deps: DocumentInputDeps,
  orgId: string,
  shipmentId: string,
): Promise<ShipmentDocInput> {
  const { db } = deps;
  const s = await deps.shipments.shipment(db, orgId, shipmentId);
  if (!s) throw new FileProblem(`shipment ${shipmentId} not found`);
  const orders = await deps.shipments.ordersOfShipment(db, s.id);
  const store = await deps.organization.storeIn(db, orgId, s.storeId);
  const brandId = orders.find((o) => o.brandId)?.brandId ?? store?.defaultBrandId ?? null;
  const brand = brandId ? await deps.organization.findBrand(orgId, brandId) : null;
  const products = new Map<string, { name: string; legacyItemSKU: string } | null>();
  let weight = 0;
  const out: ShipmentDocInput['orders'] = [];
  for (const o of orders) {
    const lines: ShipmentDocInput['orders'][number]['lines'] = [];
    for (const l of await deps.orders.orderlines(db, o.id)) {
      if (l.shippedQuantity === 0) continue;
      if (!products.has(l.productId)) products.set(l.productId, await deps.catalog.findProductData(orgId, l.productId));
      const p = products.get(l.productId);
      lines.push({
        index: l.index,
        name: p?.name ?? l.productId,
        sku: p?.legacyItemSKU ?? '',
        quantity: l.shippedQuantity,
      });
      weight += l.unitWeightGrams * l.shippedQuantity;
    }
    out.push({ code: `${store?.code ?? ''}-${o.orderNumber}`, customIdentifier: o.customIdentifier, lines });
  }
  return {
    brand: {
      name: brand?.name ?? store?.name ?? 'Your order',
      primaryColor: isHexColor(brand?.primaryColor) ? brand.primaryColor : '#222222',
      secondaryColor: isHexColor(brand?.secondaryColor) ? brand.secondaryColor : '#f5f5f5',
      logo: await logoOf(deps, brand?.logoUrl ?? null),
      customerService: brand?.customerService ?? {},
    },
    returnAddress: deps.config.returnAddress,
    destination: await deps.shipments.shipmentAddress(db, s),
    shipment: {
      reference: s.id,
      carrier: s.carrier,
      trackingNumber: s.trackingNumber,
      level: s.level,
      shippedAt: s.shippedAt,
      weightGrams: weight,
    },
    orders: out,
  };
}

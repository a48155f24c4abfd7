import { createRequire } from 'node:module';
import type { SeedDeps } from './deps.ts';

/** The stand-in shop the demo's Shopify store is connected to (no Shopify behind it). */
export const DEMO_SHOP = 'demo-cases.myshopify.com';

/**
 * Shopify's documented `orders/create` example payload (Admin API 2026-07), stored as it is
 * published; the demo orders are made from it.
 */
const EXAMPLE = createRequire(import.meta.url)('./shopify-order-example.json') as Record<string, any>;

const BUYERS = [
  {
    first_name: 'Sanne',
    last_name: 'Bakker',
    address1: 'Oudegracht 45',
    city: 'Utrecht',
    zip: '3511 AB',
    country_code: 'NL',
    email: 'sanne@example.com',
    shipping: 'Standard',
  },
  {
    first_name: 'Lukas',
    last_name: 'Schmidt',
    address1: 'Schillerstraße 12',
    city: 'München',
    zip: '80336',
    country_code: 'DE',
    email: 'lukas@example.com',
    shipping: 'Tracked shipping',
  },
  {
    first_name: 'Chloé',
    last_name: 'Martin',
    address1: '8 Rue de Rivoli',
    city: 'Paris',
    zip: '75004',
    country_code: 'FR',
    email: 'chloe@example.com',
    shipping: 'Express',
  },
];
const PRODUCTS = [
  ['iPhone 16 Tempered Glass Screen Protector', 'Crossbody Phone Strap Black'],
  ['Galaxy S25 Tempered Glass Screen Protector'],
  ['Pixel 9 Tempered Glass Screen Protector', 'Beaded Wrist Strap'],
];

/** One demo order: the example with this buyer, these products as its first lines and a name of its own. */
function demoOrder(i: number, skus: string[]): Record<string, any> {
  const o = structuredClone(EXAMPLE);
  const b = BUYERS[i];
  const id = String(4_500_000_000_001 + i);
  o.admin_graphql_api_id = `gid://shopify/Order/${id}`;
  o.id = Number(id);
  o.name = `#${1001 + i}`;
  o.order_number = 1001 + i;
  o.email = b.email;
  o.shipping_address = {
    ...o.shipping_address,
    ...b,
    name: `${b.first_name} ${b.last_name}`,
    company: null,
    province: null,
    province_code: null,
    phone: null,
    address2: null,
  };
  delete o.shipping_address.shipping;
  o.shipping_lines = o.shipping_lines.map((l: Record<string, unknown>) => ({ ...l, title: b.shipping }));
  // Our products first; the example's own lines stay, as another supplier's goods would.
  skus.forEach((sku, n) => {
    o.line_items[n].sku = sku;
    o.line_items[n].quantity = n + 1;
  });
  return o;
}

/**
 * The demo organization's Shopify store, connected to the stand-in shop, with three Shopify orders
 * taken through the same intake as a webhook (stored once, then processed): the dashboard and the
 * API show orders of a Shopify store from the first start, without any network.
 */
export async function seedShopify(
  s: Pick<SeedDeps, 'storefronts'>,
  org: {
    reference: string;
    stores: Array<{ reference: string; integration: string }>;
    products?: Array<{ reference: string; name: string }>;
  },
): Promise<void> {
  const store = org.stores.find((x) => x.integration === 'shopify');
  if (!store) return;
  if (!(await s.storefronts.connection(store.reference)))
    await s.storefronts.connectDemo(org.reference, store.reference, DEMO_SHOP);
  const byName = new Map((org.products ?? []).map((p) => [p.name, p.reference]));
  for (const [i, names] of PRODUCTS.entries()) {
    const skus = names.map((n) => byName.get(n)).filter((r): r is string => r !== undefined);
    if (skus.length === 0) continue;
    await s.storefronts.ingest(store.reference, 'orders/create', `demo-order-${i + 1}`, demoOrder(i, skus));
  }
}

import type { ProductChangeListener } from './modules/catalog/service.ts';
import type { ProductionListener } from './modules/orders/service.ts';
import type { ShippedListener } from './modules/shipments/service.ts';

/**
 * Who listens to what. A module never imports one above it (decision 0017); where a change in a
 * lower module must reach a higher one, the lower module offers a hook (`on…`) and the higher one's
 * listener is subscribed to it here, and nowhere else (test/platform/events.test.ts holds that).
 * Listeners of one hook run in the order listed.
 */
export const SUBSCRIPTIONS = [
  {
    hook: 'catalog.onProductChanged',
    listener: 'orders.productChanged',
    does: 'releases the pre-orders waiting for a product that launched (or was sunsetted before launch)',
  },
  {
    hook: 'catalog.onProductChanged',
    listener: 'webhooks.productUpdated',
    does: '`product.updated` events for every organization that can see the product',
  },
  {
    hook: 'catalog.onProductChanged',
    listener: 'storefronts.productChanged',
    does: 'publishes again the Shopify products carrying a model that stopped (or started) selling',
  },
  {
    hook: 'orders.onProductionStarted',
    listener: 'production.productionStarted',
    does: "the order's print files, in the transaction that starts production",
  },
  {
    hook: 'shipments.onShipped',
    listener: 'production.shipped',
    does: "the shipment's label and packing slip, in the transaction that creates it",
  },
] as const;

export type Subscription = (typeof SUBSCRIPTIONS)[number];

/** The hooks and listeners the subscriptions join, as createServices built them. */
export interface EventModules {
  catalog: { onProductChanged(listener: ProductChangeListener): void };
  orders: { onProductionStarted(listener: ProductionListener): void; productChanged: ProductChangeListener };
  shipments: { onShipped(listener: ShippedListener): void };
  production: { productionStarted: ProductionListener; shipped: ShippedListener };
  webhooks: { productUpdated: ProductChangeListener };
  storefronts: { productChanged: ProductChangeListener };
}

/** Subscribes every listener of SUBSCRIPTIONS to its hook. */
export function wireEvents(m: EventModules): void {
  m.catalog.onProductChanged(m.orders.productChanged);
  m.catalog.onProductChanged(m.webhooks.productUpdated);
  m.catalog.onProductChanged(m.storefronts.productChanged);
  m.orders.onProductionStarted(m.production.productionStarted);
  m.shipments.onShipped(m.production.shipped);
}

/** A committed product change, as the `catalog.product_changed` job carries it to listeners. */
export interface ProductChange {
  productReference: string;
  /** Who may see the product: its private productgroup's organization, or everyone. */
  organizationIds: string[] | 'all';
  status?: { from: string; to: string };
  stockCrossedZero?: boolean;
}
export type ProductChangeListener = (change: ProductChange) => Promise<void>;

export const PRODUCT_CHANGED_JOB = 'catalog.product_changed';

/** The `ChangeFeed` topic of every committed catalog write (products, groups, items, media, packagings). */
export const CATALOG_TOPIC = 'catalog';
/**
 * The topic of every committed stock movement. Orders move stock many times a second: dropping the
 * whole product cache on each would make every order read its products again, so only the stock
 * figures, kept apart, are dropped.
 */
export const STOCK_TOPIC = 'stock';

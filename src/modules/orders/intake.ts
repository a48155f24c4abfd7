import { ApiError, badRequest, forbidden } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { StoreFacts } from '../organization/service.ts';
import type { OrdersDeps } from './deps.ts';

/** Product stages that cannot be ordered (spec: announced, ended, archived; invisible ones are absent). */
const NOT_ORDERABLE = new Set(['announced', 'ended', 'archived']);

/** The fields order creation and the quote share, under the same names. */
export interface IntakeInput {
  storeReference: string;
  shippingKind: 'dropship' | 'combined';
  dropshipAddress?: Record<string, unknown>;
  dropshipMinimalShippingLevel?: string;
  orderlines: Array<{ productReference: string }>;
}

/**
 * The checks an order passes before anything is priced or written, shared by order creation and
 * the quote so that both answer with the same codes: the shipping kind's fields, the store (known,
 * writable through the API) and the products (in the catalog, orderable).
 */
export function orderIntake(deps: Pick<OrdersDeps, 'organization' | 'catalog'>) {
  /** A store named in a body: unknown or foreign is a 400 naming the field, not a 404. */
  async function bodyStore(orgId: string, ref: string, field: string): Promise<StoreFacts> {
    const row = isReference('Store', ref) ? await deps.organization.cachedStore(orgId, ref) : null;
    if (!row) throw badRequest(`${field} is not a store of this organization`);
    return row;
  }

  function writable(store: StoreFacts): void {
    if (store.integration !== 'api') {
      throw forbidden(
        'store_not_writable_via_api',
        `Store ${store.code} is connected through ${store.integration}; create and change its orders there`,
      );
    }
  }

  /** The catalog's view of each line's product, in line order. */
  async function checkProducts(orgId: string, lines: Array<{ productReference: string }>, field: string) {
    const refs = [...new Set(lines.map((l) => l.productReference).filter((r) => isReference('Product', r)))];
    const found = refs.length ? await deps.catalog.orderableProducts(orgId, refs) : new Map();
    return lines.map((l, i) => {
      const p = found.get(l.productReference);
      if (!p)
        throw new ApiError(
          'product_not_orderable',
          `${field}[${i}].productReference ${l.productReference} is not a product of the catalog`,
        );
      if (NOT_ORDERABLE.has(p.status))
        throw new ApiError(
          'product_not_orderable',
          `${field}[${i}].productReference ${l.productReference} is ${p.status} and cannot be ordered`,
        );
      return p;
    });
  }

  /** Combined orders ship to the store's address, dropship orders to their own: the fields follow. */
  function checkKind(input: IntakeInput, f: string): void {
    if (input.shippingKind === 'combined') {
      for (const k of ['dropshipAddress', 'dropshipMinimalShippingLevel'] as const) {
        if (input[k] !== undefined)
          throw badRequest(`${f}.${k} is not accepted for combined orders: they ship to the store's combined address`);
      }
    } else if (input.dropshipAddress === undefined) {
      throw new ApiError('missing_address', `${f}.dropshipAddress is required for dropship orders`);
    }
  }

  return {
    bodyStore,
    writable,
    checkProducts,
    /** The kind rule, then the store: what comes first for both order creation and the quote. */
    async store(orgId: string, input: IntakeInput, f: string, upstream = false): Promise<StoreFacts> {
      checkKind(input, f);
      const store = await bodyStore(orgId, input.storeReference, `${f}.storeReference`);
      // Orders of a platform-backed store come from that platform only, never from an API client.
      if (upstream) {
        if (store.integration === 'api')
          throw new Error(`store ${store.code} is an API store, not an upstream platform's`);
      } else writable(store);
      return store;
    },
  };
}

export type OrderIntake = ReturnType<typeof orderIntake>;

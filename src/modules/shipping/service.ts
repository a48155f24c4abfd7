import type { Static } from 'typebox';
import { ApiError, badRequest } from '../../platform/errors.ts';
import type { OrdersService } from '../orders/service.ts';
import { parcelOf } from '../orders/view.ts';
import { checkCountry, isPackstation, normalizeAddress, validateAddress } from './address.ts';
import { deliveryWindow, shippingOptions } from './data.ts';
import type { QuoteBody } from './schemas.ts';

export type ShippingService = ReturnType<typeof shippingService>;

/**
 * Quotes and the shipping rules other modules need (claims: delivery windows). Store and product
 * checks are the ones order creation uses, so both answer with the same codes.
 */
export function shippingService(deps: { orders: OrdersService }) {
  const { orders } = deps;
  return {
    deliveryWindow,
    validateAddress,
    isPackstation,

    async quote(orgId: string, body: Static<typeof QuoteBody>) {
      const q = body.quote;
      const f = 'body.quote';
      if (q.shippingKind === 'combined') {
        for (const k of ['dropshipAddress', 'dropshipMinimalShippingLevel'] as const) {
          if (q[k] !== undefined)
            throw badRequest(
              `${f}.${k} is not accepted for combined orders: they ship to the store's combined address`,
            );
        }
      } else if (q.dropshipAddress === undefined) {
        throw new ApiError(400, 'missing_address', `${f}.dropshipAddress is required for dropship orders`);
      }
      const store = await orders.bodyStore(orgId, q.storeReference, `${f}.storeReference`);
      orders.writable(store);
      const address = q.dropshipAddress ? normalizeAddress(q.dropshipAddress) : null;
      const cc = address ? checkCountry(address, `${f}.dropshipAddress`) : null;
      const products = await orders.checkProducts(orgId, q.orderlines, `${f}.orderlines`);
      if (!address || !cc) return { shippingOptions: [] };
      const lines = q.orderlines.map((l, i) => ({
        quantity: l.quantity,
        canceled_quantity: 0,
        unit_price_cents: products[i].priceCents,
        unit_weight_grams: products[i].weightGrams,
      }));
      return {
        shippingOptions: shippingOptions(
          parcelOf(lines, cc, isPackstation(address)),
          q.dropshipMinimalShippingLevel ?? 'basic',
        ),
      };
    },
  };
}

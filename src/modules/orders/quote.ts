import type { Static } from 'typebox';
import { checkCountry, isPackstation, normalizeAddress } from '../shipping/address.ts';
import { parcelOf, shippingOptions } from '../shipping/data.ts';
import type { OrderIntake } from './intake.ts';
import type { QuoteBody } from './schemas.ts';

/**
 * The shipping options of a prospective order. Nothing is stored; the intake checks are those of
 * order creation, so both answer with the same codes.
 */
export async function quote(intake: OrderIntake, orgId: string, body: Static<typeof QuoteBody>) {
  const q = body.quote;
  const f = 'body.quote';
  await intake.store(orgId, q, f);
  const address = q.dropshipAddress ? normalizeAddress(q.dropshipAddress) : null;
  const cc = address ? checkCountry(address, `${f}.dropshipAddress`) : null;
  const products = await intake.checkProducts(orgId, q.orderlines, `${f}.orderlines`);
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
}

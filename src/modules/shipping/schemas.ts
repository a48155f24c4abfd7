import { Cents, Open, Strict, Type } from '../../platform/http/schemas.ts';
import { AddressIn, KindEnum, LevelEnum } from '../orders/schemas.ts';

/** Only the shipping-relevant order fields, under the names of POST /orders. */
export const QuoteBody = Strict({
  quote: Strict({
    storeReference: Type.String({ maxLength: 200 }),
    shippingKind: KindEnum,
    dropshipAddress: Type.Optional(AddressIn),
    dropshipMinimalShippingLevel: Type.Optional(LevelEnum),
    orderlines: Type.Array(
      Strict({
        productReference: Type.String({ maxLength: 200 }),
        quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
      }),
      { minItems: 1, maxItems: 100 },
    ),
  }),
});

export const QuoteOut = Open({
  shippingOptions: Type.Array(Open({ level: LevelEnum, price: Cents }), {
    description: 'Lowest level first; empty for combined orders',
  }),
});

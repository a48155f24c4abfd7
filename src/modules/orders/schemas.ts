import { Cents, Nullable, Open, PageQuery, Reference, Strict, Timestamp, Type } from '../../platform/http/schemas.ts';
import { ADDRESS_FIELDS } from '../../platform/http/schemas.ts';
import { AddressIn, KindEnum, LevelEnum } from '../shipping/schemas.ts';

export const StatusEnum = Type.Enum(['pending', 'preorder', 'in_production', 'shipped', 'canceled'], {
  description: 'OrderStatusCode (strict enum)',
});

export const Annotation = Strict({
  key: Type.String({ minLength: 1, maxLength: 100 }),
  value: Type.String({ maxLength: 1000 }),
});

export const CreateOrderBody = Strict({
  order: Strict({
    storeReference: Type.String({ maxLength: 200 }),
    shippingKind: KindEnum,
    customIdentifier: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    dropshipAddress: Type.Optional(AddressIn),
    dropshipMinimalShippingLevel: Type.Optional(LevelEnum),
    brandReference: Type.Optional(Type.String({ maxLength: 200 })),
    preferredPackagingReference: Type.Optional(Type.String({ maxLength: 200 })),
    orderlines: Type.Array(
      Strict({
        productReference: Type.String({ maxLength: 200 }),
        imageReference: Type.Optional(Type.String({ maxLength: 200 })),
        quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
        annotations: Type.Optional(Type.Array(Annotation, { maxItems: 10 })),
      }),
      { minItems: 1, maxItems: 100 },
    ),
  }),
});

export const OrderOut = Open({
  reference: Reference('Order'),
  storeReference: Reference('Store'),
  shippingKind: KindEnum,
  customIdentifier: Nullable(Type.String()),
  dropshipAddressReference: Nullable(Reference('Address')),
  dropshipMinimalShippingLevel: Nullable(LevelEnum),
  shippingLevel: Nullable(LevelEnum),
  status: Open({ code: StatusEnum, modified: Timestamp }),
  orderlines: Type.Array(
    Open({
      index: Type.Integer(),
      productReference: Reference('Product'),
      imageReference: Nullable(Reference('Image')),
      quantity: Type.Integer(),
      canceledQuantity: Type.Integer(),
      shippedQuantity: Type.Integer(),
      annotations: Type.Array(Open({ key: Type.String(), value: Type.String() })),
    }),
  ),
  brandReference: Nullable(Reference('Brand')),
  preferredPackagingReference: Nullable(Reference('Packaging')),
  created: Timestamp,
  legacyOrderCode: Type.String({ description: '`<store code>-<number>`, the V1-style reference' }),
  shipmentReference: Nullable(Reference('Shipment')),
  replacementForClaimReference: Nullable(Reference('Claim')),
  viaStoreCode: Nullable(
    Type.String({ description: 'Code of the integrator whose API key created the order (extension); null otherwise' }),
  ),
  upstreamOrder: Type.Optional(
    Nullable(
      Open(
        {
          id: Type.String({
            description: "The order's id on the platform (Shopify: the numeric id of `gid://shopify/Order/…`)",
          }),
          name: Type.String({
            description: "The order's name there, as the merchant and buyer see it (Shopify: `#1001`)",
          }),
        },
        {
          description:
            "Extension: the upstream platform's order this order was taken from, for stores whose `integration` is a platform such as `shopify`; null for orders created through the API",
        },
      ),
    ),
  ),
  prices: Open({ products: Cents, shipping: Cents, total: Cents }),
});

export const ListOrdersQuery = Strict({
  ...PageQuery,
  storeReference: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(StatusEnum),
  createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
  createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
});

export const CancelBody = Strict({
  orderlines: Type.Array(
    Strict({ index: Type.Integer({ minimum: 1 }), canceledQuantity: Type.Integer({ minimum: 0 }) }),
    { minItems: 1, maxItems: 100 },
  ),
});

export const AddressChangeBody = Strict({ dropshipAddress: AddressIn });

export const AddressOut = Open({
  reference: Reference('Address'),
  ...Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, Type.Optional(Type.String())])),
});

export const LookupQuery = Strict({ customIdentifier: Type.String({ minLength: 1, maxLength: 100 }) });

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

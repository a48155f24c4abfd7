import { Nullable, Open, type Static, Type } from '../../../platform/http/schemas.ts';

/**
 * The parts of Shopify's webhook payloads (API 2026-07) the service reads, as Shopify documents them.
 * Objects are open, as Shopify adds fields; lengths are capped so that a payload no real shop sends
 * (a megabyte of address, tens of thousands of lines) is refused before it is stored.
 */

const Text = (max = 255) => Nullable(Type.String({ maxLength: max }));
/** A numeric id: a JSON number, or its decimal string when it is past 2^53 (see json.ts). */
const NumericId = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,20}$' })]);
const Gid = (kind: string) => Type.String({ pattern: `^gid://shopify/${kind}/[0-9]+$`, maxLength: 100 });

export const MAX_ORDER_LINES = 500;

export const ShopifyAddress = Open({
  first_name: Type.Optional(Text(100)),
  last_name: Type.Optional(Text(100)),
  company: Type.Optional(Text(100)),
  address1: Type.Optional(Text(255)),
  address2: Type.Optional(Text(255)),
  city: Type.Optional(Text(100)),
  zip: Type.Optional(Text(30)),
  province: Type.Optional(Text(100)),
  province_code: Type.Optional(Text(10)),
  country_code: Type.Optional(Text(2)),
  phone: Type.Optional(Text(50)),
});
export type ShopifyAddress = Static<typeof ShopifyAddress>;

export const ShopifyLineItem = Open({
  admin_graphql_api_id: Type.Optional(Gid('LineItem')),
  sku: Type.Optional(Text(255)),
  quantity: Type.Integer({ minimum: 0, maximum: 10_000 }),
  title: Type.Optional(Text(500)),
});

export const ShopifyOrder = Open({
  admin_graphql_api_id: Gid('Order'),
  name: Type.String({ maxLength: 100 }),
  email: Type.Optional(Text(254)),
  contact_email: Type.Optional(Text(254)),
  created_at: Type.Optional(Text(40)),
  line_items: Type.Array(ShopifyLineItem, { maxItems: MAX_ORDER_LINES }),
  shipping_address: Type.Optional(Nullable(ShopifyAddress)),
  shipping_lines: Type.Optional(
    Type.Array(Open({ title: Type.Optional(Text(255)), code: Type.Optional(Text(255)) }), { maxItems: 50 }),
  ),
});
export type ShopifyOrder = Static<typeof ShopifyOrder>;

/** customers/redact, customers/data_request and shop/redact (the mandatory privacy topics). */
export const PrivacyRequest = Open({
  shop_domain: Type.String({ maxLength: 255 }),
  customer: Type.Optional(Open({ id: Type.Optional(NumericId), email: Type.Optional(Text(254)) })),
  orders_to_redact: Type.Optional(Type.Array(NumericId, { maxItems: 10_000 })),
  orders_requested: Type.Optional(Type.Array(NumericId, { maxItems: 10_000 })),
});
export type PrivacyRequest = Static<typeof PrivacyRequest>;

/** The body Shopify posts to `<callbackUrl>/fulfillment_order_notification`. */
export const FulfillmentNotification = Open({
  kind: Type.Union([Type.Literal('FULFILLMENT_REQUEST'), Type.Literal('CANCELLATION_REQUEST')]),
});

/** Topics the service subscribes to, with the schema each payload must meet. */
export const TOPIC_SCHEMAS = {
  'orders/create': ShopifyOrder,
  'app/uninstalled': Open({}),
  'customers/data_request': PrivacyRequest,
  'customers/redact': PrivacyRequest,
  'shop/redact': PrivacyRequest,
  fulfillment_order_notification: FulfillmentNotification,
} as const;
export type Topic = keyof typeof TOPIC_SCHEMAS;

/** What `webhookSubscriptionCreate` is asked for (the privacy topics are set in the app's configuration). */
export const SUBSCRIBED_TOPICS = ['ORDERS_CREATE', 'APP_UNINSTALLED'] as const;

export const isTopic = (t: string): t is Topic => Object.hasOwn(TOPIC_SCHEMAS, t);

/** The groups of docs/errors.md, by area; every code is listed under one (and may be under more). */
export const ERROR_GROUPS = {
  any: 'Any endpoint',
  images: 'Images and evidence',
  orders: 'Orders, quote, addresses',
  claims: 'Claims',
  rendering: 'Rendering',
  webhooks: 'Webhooks',
  testHelpers: 'Test helpers (test environment only)',
  operator: 'Operator API and dashboard',
  shopify: 'Shopify stores (webhooks, OAuth and publishing)',
} as const;
export type ErrorGroup = keyof typeof ERROR_GROUPS;

/** The partner contract's groups: the OpenAPI descriptions list their codes, not the operator's. */
export const PARTNER_GROUPS: readonly ErrorGroup[] = [
  'any',
  'images',
  'orders',
  'claims',
  'rendering',
  'webhooks',
  'testHelpers',
];

export interface ErrorSpec {
  status: number;
  group: ErrorGroup;
  /** When it happens, as docs/errors.md says it (Markdown). */
  description: string;
  /** The same code under another group of the docs, with what it means there. */
  also?: Array<{ group: ErrorGroup; description: string }>;
}

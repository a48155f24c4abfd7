import type { Client } from '../client.ts';
import type { TestTriggerEventBody } from '../generated.ts';
import { CliFailure, fields, json, table } from './output.ts';

export interface Command {
  /** `orders list`: the words that select it. */
  name: string;
  summary: string;
  /** Positional arguments, e.g. `<orderReference>`. */
  args?: string;
  options?: Record<string, { type: 'string' | 'boolean'; description: string }>;
  example: string;
  /** More lines for `--help`, after the summary. */
  details?: string[];
  run(client: Client, positionals: string[], values: Record<string, string | boolean | undefined>): Promise<void>;
}

const limitOption = { limit: { type: 'string' as const, description: 'rows to show (default 20)' } };

function limitOf(values: Record<string, unknown>): number {
  const raw = values.limit ?? '20';
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000)
    throw new CliFailure(`--limit must be a whole number from 1 to 1000, got ${String(raw)}`);
  return Number(raw);
}

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new CliFailure(`give exactly one ${what}`);
  return positionals[0];
}

/** Lists show at most `--limit` rows across pages, as a table or one JSON document. */
async function list<T extends Record<string, unknown>>(
  items: AsyncIterable<T> & { toArray(max?: number): Promise<T[]> },
  values: Record<string, unknown>,
  key: string,
  rows: (item: T) => Record<string, unknown>,
  columns: string[],
): Promise<void> {
  const all = await items.toArray(limitOf(values));
  if (values.json) json({ [key]: all });
  else table(all.map(rows), columns);
}

const show = (values: Record<string, unknown>, doc: Record<string, unknown>, key: string) => {
  if (values.json) json(doc);
  else fields(doc[key] as Record<string, unknown>);
};

type TriggerType = TestTriggerEventBody['event']['type'];

/**
 * What `trigger` can make happen, and what it creates for it. Keyed by the generated type: a type
 * the API adds or drops fails the SDK's type check until it is listed here.
 */
export const TRIGGER_TYPES: Record<TriggerType, string> = {
  'order.created': 'an artwork and an order',
  'order.updated': 'an order, then cancels one of its items',
  'order.shipped': 'an order, its production and its shipment',
  'shipment.created': 'an order, its production and its shipment',
  'shipment.tracking_updated': 'a shipped order, then an in-transit tracking event',
  'shipment.delivered': 'a shipped order, then tracking events up to its delivery',
  'claim.created': 'a shipped order, then a claim on one of its items',
  'claim.updated': 'a claim on a shipped order, then its decision (a refund)',
};

function triggerType(given: string): TriggerType {
  if (given in TRIGGER_TYPES) return given as TriggerType;
  throw new CliFailure(`"${given}" cannot be triggered; one of: ${Object.keys(TRIGGER_TYPES).join(', ')}`);
}

/** The everyday reads, plus `trigger`; `listen` lives in main.ts (it runs until stopped). */
export const COMMANDS: Command[] = [
  {
    name: 'whoami',
    summary: 'check the key: its organization and what the key may do',
    example: 'podpartner whoami',
    async run(client, _p, values) {
      const [auth, org] = await Promise.all([client.auth.validate(), client.organization.get()]);
      const doc = { organization: org.organization, message: auth.message, baseUrl: client.baseUrl };
      if (values.json) json(doc);
      else
        fields({
          organization: org.organization.reference,
          name: org.organization.name,
          key: auth.message,
          api: client.baseUrl,
        });
    },
  },
  {
    name: 'orders list',
    summary: 'orders, newest first',
    options: {
      ...limitOption,
      status: { type: 'string', description: 'pending, preorder, in_production, shipped or canceled' },
      store: { type: 'string', description: 'only this store (Store_…)' },
    },
    example: 'podpartner orders list --status shipped --limit 5',
    async run(client, _p, values) {
      const query = {
        ...(values.status ? { status: values.status as 'pending' } : {}),
        ...(values.store ? { storeReference: String(values.store) } : {}),
        limit: Math.min(100, limitOf(values)),
      };
      await list(
        client.orders.list(query),
        values,
        'orders',
        (o) => ({
          reference: o.reference,
          status: (o.status as { code: string }).code,
          kind: o.shippingKind,
          customIdentifier: o.customIdentifier,
          lines: (o.orderlines as unknown[]).length,
          total: ((o.prices as { total: number }).total / 100).toFixed(2),
          created: String(o.created).slice(0, 19).replace('T', ' '),
        }),
        ['reference', 'status', 'kind', 'customIdentifier', 'lines', 'total', 'created'],
      );
    },
  },
  {
    name: 'orders get',
    summary: 'one order with its lines',
    args: '<orderReference>',
    example: 'podpartner orders get Order_0m4b5rzv1e4q1yq3kz3m7e2x9c',
    async run(client, p, values) {
      const doc = await client.orders.get(one(p, 'order reference'));
      if (values.json) return json(doc);
      const { orderlines, ...order } = doc.order;
      fields({ ...order, status: order.status.code, prices: order.prices });
      process.stdout.write('\n');
      table(
        orderlines.map((l) => ({ ...l, annotations: l.annotations.length || '' })),
        ['index', 'productReference', 'imageReference', 'quantity', 'canceledQuantity', 'shippedQuantity'],
      );
    },
  },
  {
    name: 'shipments get',
    summary: 'one shipment with its tracking',
    args: '<shipmentReference>',
    example: 'podpartner shipments get Shipment_3g0f1y2mz8a7kq4c5v6b9n1x2d',
    async run(client, p, values) {
      show(values, await client.shipments.get(one(p, 'shipment reference')), 'shipment');
    },
  },
  {
    name: 'claims list',
    summary: 'open claims and those closed in the last 14 days',
    options: limitOption,
    example: 'podpartner claims list --json',
    async run(client, _p, values) {
      await list(
        client.claims.list({ limit: Math.min(100, limitOf(values)) }),
        values,
        'claims',
        (c) => ({
          ...c,
          claimcategories: (c.claimcategories as Array<{ name: string }>).map((x) => x.name).join(', '),
        }),
        ['reference', 'status', 'orderReference', 'claimcategories', 'created'],
      );
    },
  },
  {
    name: 'claims get',
    summary: 'one claim with its lines and decision',
    args: '<claimReference>',
    example: 'podpartner claims get Claim_5k2v8x1c0b7n3m4q6w9e1r2t3y',
    async run(client, p, values) {
      show(values, await client.claims.get(one(p, 'claim reference')), 'claim');
    },
  },
  {
    name: 'products list',
    summary: 'the catalog your organization sees',
    options: limitOption,
    example: 'podpartner products list --limit 50',
    async run(client, _p, values) {
      await list(client.products.list({ limit: Math.min(100, limitOf(values)) }), values, 'products', (x) => x, [
        'reference',
        'name',
        'status',
        'printable',
        'availableQuantity',
      ]);
    },
  },
  {
    name: 'events list',
    summary: 'recent events (what webhooks deliver), newest first',
    options: { ...limitOption, type: { type: 'string', description: 'only this type, e.g. order.shipped' } },
    example: 'podpartner events list --type order.shipped',
    async run(client, _p, values) {
      const query = { limit: Math.min(100, limitOf(values)), ...(values.type ? { type: values.type as 'ping' } : {}) };
      await list(
        client.events.list(query),
        values,
        'events',
        (e) => ({ ...e, object: Object.keys(e.data as object).find((k) => k !== 'sequence') }),
        ['reference', 'type', 'timestamp', 'object'],
      );
    },
  },
  {
    name: 'rendertokens',
    summary: 'rendertokens used and left this week',
    example: 'podpartner rendertokens',
    async run(client, _p, values) {
      show(values, await client.rendertokens.get(), 'rendertokens');
    },
  },
  {
    name: 'trigger',
    summary: 'test environment: make an event really happen (creates the order, shipment, … it needs)',
    args: '<eventType>',
    example: 'podpartner trigger order.shipped',
    details: [
      'Event types (and what is created for them):',
      ...Object.entries(TRIGGER_TYPES).map(([type, made]) => `  ${type.padEnd(26)}  ${made}`),
    ],
    async run(client, p, values) {
      const type = triggerType(one(p, 'event type (e.g. order.shipped)'));
      const doc = await client.testHelpers.triggerEvent({ event: { type } });
      if (values.json) return json(doc);
      process.stdout.write(`Triggered ${doc.trigger.type}. Created:\n`);
      fields(doc.trigger.objects as Record<string, unknown>);
    },
  },
];

import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type GraphQLSchema,
  type OperationDefinitionNode,
  buildSchema,
  getVariableValues,
  parse,
  validate,
} from 'graphql';
import { SHOPIFY_API_VERSION } from '../../src/modules/storefronts/shopify/version.ts';

/**
 * A local Shopify for tests: OAuth (authorize, access token), the Admin GraphQL endpoint of
 * SHOPIFY_API_VERSION and signed webhooks. Every GraphQL document is validated against Shopify's
 * published schema — the full one when SHOPIFY_ADMIN_SCHEMA names a copy, else the subset in
 * test/fixtures/shopify — and a document that does not validate is answered as Shopify does (200
 * with `errors`) and recorded, so a test sees it. Answers follow the shape of Shopify's documented
 * examples, with the fields the query asked for.
 */

const SUBSET = new URL('../fixtures/shopify/admin-2026-07.subset.graphql', import.meta.url);
let schema: GraphQLSchema | null = null;
function adminSchema(): GraphQLSchema {
  schema ??= buildSchema(readFileSync(process.env.SHOPIFY_ADMIN_SCHEMA || SUBSET, 'utf8'), { assumeValidSDL: true });
  return schema;
}

export interface GraphqlCall {
  operation: string;
  variables: Record<string, any>;
  token: string | undefined;
  shop: string;
}

export interface FulfillmentOrderFixture {
  id: string;
  orderId: string;
  orderName: string;
  status: 'FULFILLMENT_REQUESTED' | 'CANCELLATION_REQUESTED';
  lines: Array<{ sku: string; quantity: number }>;
  destination: Record<string, string | null>;
  /** The delivery option the buyer chose at checkout (Shopify's DeliveryMethod); shipping by default. */
  deliveryMethod?: { methodType: string; presentedName: string | null; serviceCode: string | null };
}

const body = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });

const gid = (kind: string) => `gid://shopify/${kind}/${Math.floor(1e9 + Math.random() * 8e9)}`;

export class ShopifyStandIn {
  private server!: Server;
  origin = '';
  readonly calls: GraphqlCall[] = [];
  readonly invalid: Array<{ operation: string; errors: string[] }> = [];
  readonly uploads = new Map<string, Buffer>();
  readonly products = new Map<string, any>();
  fulfillmentOrders: FulfillmentOrderFixture[] = [];
  /** Answers for the next GraphQL calls before they reach the handlers: a status and headers. */
  readonly failures: Array<{ status: number; headers?: Record<string, string> }> = [];
  throttleAvailable = 1000;
  readonly tokens = new Set<string>();

  constructor(readonly apiSecret: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res.writeHead.bind(res), (status, headers, text) => {
        res.writeHead(status, headers);
        res.end(text);
      }).catch((err) => {
        res.writeHead(500);
        res.end(String(err));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop = () => new Promise<void>((r) => this.server.close(() => r()));

  /** The service's fetch: `https://<shop>/…` is served here, with the shop in a header. */
  fetch = (url: string, init?: RequestInit) => {
    const u = new URL(url);
    const headers = new Headers(init?.headers);
    headers.set('x-standin-shop', u.host);
    return fetch(`${this.origin}${u.pathname}${u.search}`, { ...init, headers });
  };

  /** What Shopify's authorize page sends back to the app once the merchant approves. */
  approve(authorizeUrl: string): Record<string, string> {
    const u = new URL(authorizeUrl);
    const q: Record<string, string> = {
      code: randomBytes(8).toString('hex'),
      shop: u.host,
      state: u.searchParams.get('state')!,
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const message = Object.keys(q)
      .sort()
      .map((k) => `${k}=${q[k]}`)
      .join('&');
    q.hmac = createHmac('sha256', this.apiSecret).update(message).digest('hex');
    return q;
  }

  /** Headers of a webhook as Shopify signs it. */
  webhookHeaders(
    topic: string,
    shop: string,
    rawBody: string,
    id = randomBytes(8).toString('hex'),
    secret = this.apiSecret,
  ) {
    return {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-shop-domain': shop,
      'x-shopify-api-version': SHOPIFY_API_VERSION,
      'x-shopify-webhook-id': id,
      'x-shopify-event-id': `event-${id}`,
      'x-shopify-triggered-at': new Date().toISOString(),
      'x-shopify-hmac-sha256': createHmac('sha256', secret).update(rawBody).digest('base64'),
    };
  }

  private async handle(
    req: IncomingMessage,
    _w: unknown,
    send: (s: number, h: Record<string, string>, t: string) => void,
  ) {
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      send(status, { 'content-type': 'application/json', ...headers }, JSON.stringify(value));
    const url = new URL(req.url ?? '/', this.origin);
    const bytes = await body(req);
    const text = bytes.toString('utf8');
    const shop = String(req.headers['x-standin-shop'] ?? '');
    if (req.method === 'POST' && url.pathname === '/admin/oauth/access_token') {
      const b = JSON.parse(text) as { client_secret: string; code: string };
      if (b.client_secret !== this.apiSecret || !b.code) return json(400, { error: 'invalid_request' });
      const token = `shpat_${randomBytes(16).toString('hex')}`;
      this.tokens.add(token);
      return json(200, { access_token: token, scope: 'write_products,write_assigned_fulfillment_orders' });
    }
    if (req.method === 'PUT' && url.pathname.startsWith('/staged/')) {
      this.uploads.set(url.pathname, bytes);
      return send(200, {}, '');
    }
    if (req.method === 'POST' && url.pathname === `/admin/api/${SHOPIFY_API_VERSION}/graphql.json`) {
      const token = req.headers['x-shopify-access-token'] as string | undefined;
      if (!token || !this.tokens.has(token)) return json(401, { errors: '[API] Invalid API key or access token' });
      const failure = this.failures.shift();
      if (failure) return json(failure.status, { errors: 'Service unavailable' }, failure.headers);
      const { query, variables } = JSON.parse(text) as { query: string; variables?: Record<string, any> };
      const doc = parse(query);
      const op = doc.definitions[0] as { name?: { value: string } };
      const operation = op.name?.value ?? '';
      const errors = validate(adminSchema(), doc).map((e) => e.message);
      // The variables too: an input field Shopify does not have, or a wrong type, is refused as Shopify does.
      if (!errors.length) {
        const coerced = getVariableValues(
          adminSchema(),
          (op as OperationDefinitionNode).variableDefinitions ?? [],
          variables ?? {},
        );
        if (coerced.errors) errors.push(...coerced.errors.map((e) => e.message));
      }
      if (errors.length) {
        this.invalid.push({ operation, errors });
        return json(200, { errors: errors.map((message) => ({ message })) });
      }
      this.calls.push({ operation, variables: variables ?? {}, token, shop });
      const cost = {
        requestedQueryCost: 10,
        actualQueryCost: 10,
        throttleStatus: { maximumAvailable: 2000, currentlyAvailable: this.throttleAvailable, restoreRate: 100 },
      };
      return json(200, { data: this.answer(operation, variables ?? {}), extensions: { cost } });
    }
    return json(404, { errors: 'Not Found' });
  }

  private answer(operation: string, v: Record<string, any>): unknown {
    const noErrors = { userErrors: [] };
    switch (operation) {
      case 'FulfillmentServiceCreate':
        return {
          fulfillmentServiceCreate: {
            fulfillmentService: {
              id: gid('FulfillmentService'),
              serviceName: v.name,
              location: { id: gid('Location') },
            },
            ...noErrors,
          },
        };
      case 'WebhookSubscriptionCreate':
        return {
          webhookSubscriptionCreate: {
            webhookSubscription: { id: gid('WebhookSubscription'), topic: v.topic },
            ...noErrors,
          },
        };
      case 'AssignedFulfillmentOrders': {
        const nodes = this.fulfillmentOrders
          .filter((f) => f.status === v.status)
          .map((f) => ({
            id: f.id,
            status: f.status === 'FULFILLMENT_REQUESTED' ? 'OPEN' : 'IN_PROGRESS',
            requestStatus: f.status === 'FULFILLMENT_REQUESTED' ? 'SUBMITTED' : 'CANCELLATION_REQUESTED',
            orderId: f.orderId,
            orderName: f.orderName,
            deliveryMethod: f.deliveryMethod ?? {
              methodType: 'SHIPPING',
              presentedName: 'Standard',
              serviceCode: 'STANDARD',
            },
            destination: f.destination,
            lineItems: {
              nodes: f.lines.map((l) => ({
                id: gid('FulfillmentOrderLineItem'),
                sku: l.sku,
                totalQuantity: l.quantity,
                remainingQuantity: l.quantity,
                lineItem: { id: gid('LineItem') },
              })),
            },
            merchantRequests: { nodes: [] },
          }));
        return { assignedFulfillmentOrders: { nodes, pageInfo: { hasNextPage: false, endCursor: null } } };
      }
      case 'AcceptFulfillmentRequest':
      case 'RejectFulfillmentRequest':
      case 'AcceptCancellationRequest':
      case 'RejectCancellationRequest': {
        const accepted = operation.startsWith('Accept');
        const fo = this.fulfillmentOrders.find((f) => f.id === v.id);
        const requestStatus = operation.includes('Cancellation')
          ? accepted
            ? 'CANCELLATION_ACCEPTED'
            : 'CANCELLATION_REJECTED'
          : accepted
            ? 'ACCEPTED'
            : 'REJECTED';
        if (fo) this.fulfillmentOrders = this.fulfillmentOrders.filter((f) => f !== fo);
        const field = `fulfillmentOrder${operation.replace('FulfillmentRequest', 'FulfillmentRequest')}`;
        return { [field]: { fulfillmentOrder: { id: v.id, requestStatus }, ...noErrors } };
      }
      case 'FulfillmentCreate':
        return {
          fulfillmentCreate: {
            fulfillment: {
              id: gid('Fulfillment'),
              status: 'SUCCESS',
              trackingInfo: [v.fulfillment.trackingInfo ?? {}],
            },
            ...noErrors,
          },
        };
      case 'FulfillmentTrackingInfoUpdate':
        return {
          fulfillmentTrackingInfoUpdate: {
            fulfillment: { id: v.fulfillmentId, status: 'SUCCESS', trackingInfo: [v.trackingInfoInput] },
            ...noErrors,
          },
        };
      case 'FulfillmentEventCreate':
        return {
          fulfillmentEventCreate: {
            fulfillmentEvent: { id: gid('FulfillmentEvent'), status: v.event.status },
            ...noErrors,
          },
        };
      case 'StagedUploadsCreate':
        return {
          stagedUploadsCreate: {
            stagedTargets: v.input.map((i: { filename: string }) => {
              const key = `/staged/${randomBytes(6).toString('hex')}/${i.filename}`;
              return {
                url: `https://shopify-staged-uploads.storage.googleapis.com${key}`,
                resourceUrl: `https://shopify-staged-uploads.storage.googleapis.com${key}`,
                parameters: [{ name: 'content_type', value: 'image/png' }],
              };
            }),
            ...noErrors,
          },
        };
      case 'ProductSet': {
        const id = v.identifier?.id ?? gid('Product');
        this.products.set(id, v.input);
        return {
          productSet: {
            product: {
              id,
              handle: String(v.input.title ?? 'product')
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, '-'),
              status: v.input.status ?? 'ACTIVE',
              variants: {
                nodes: (v.input.variants ?? []).map((x: { sku?: string }) => ({
                  id: gid('ProductVariant'),
                  sku: x.sku ?? null,
                })),
              },
            },
            ...noErrors,
          },
        };
      }
      case 'ProductStatusUpdate':
        return { productUpdate: { product: { id: v.product.id, status: v.product.status }, ...noErrors } };
      default:
        return {};
    }
  }
}

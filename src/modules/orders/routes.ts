import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Open, Page, RefParams, Reference, Type, errors } from '../../platform/http/schemas.ts';
import type { OrdersService } from './service.ts';
import {
  AddressChangeBody,
  AddressOut,
  CancelBody,
  CreateOrderBody,
  ListOrdersQuery,
  LookupQuery,
  OrderOut,
  QuoteBody,
  QuoteOut,
} from './schemas.ts';

const tags = ['Orders'];

/** Orders: placing, reading and changing them, addresses, lookups and the shipping quote. */
export function ordersRoutes(app: FastifyInstance, s: { orders: OrdersService }): void {
  orderPlacementRoutes(app, s);
  orderChangeRoutes(app, s);
}

/** Placing an order and reading orders. */
function orderPlacementRoutes(app: FastifyInstance, s: { orders: OrdersService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

  r.post(
    '/orders',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'createOrder',
        tags,
        summary: 'Create a dropship or combined order',
        description:
          'Send `Idempotency-Key` or a unique `customIdentifier` so that a retried request cannot create a second order.',
        body: CreateOrderBody,
        response: { 200: Open({ order: Open({ reference: Reference('Order') }) }), ...errors(403, 409) },
      },
    },
    async (req) => ({ order: await s.orders.create(org(req), req.body, req.principal.integratorCode ?? null) }),
  );

  r.get(
    '/orders',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listOrders',
        tags,
        summary: 'Orders, newest first',
        querystring: ListOrdersQuery,
        response: { 200: Page('orders', OrderOut), ...errors() },
      },
    },
    async (req) => s.orders.list(org(req), req.query),
  );

  r.get(
    '/orders/:orderReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getOrder',
        tags,
        summary: 'One order with its lines',
        params: RefParams('orderReference'),
        response: { 200: Open({ order: OrderOut }), ...errors(404) },
      },
    },
    async (req) => ({ order: await s.orders.get(org(req), req.params.orderReference) }),
  );
}

/** Cancelation and address change, addresses, the lookup by customIdentifier and the quote. */
function orderChangeRoutes(app: FastifyInstance, s: { orders: OrdersService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;
  r.post(
    '/orders/:orderReference/cancel',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'cancelOrderlines',
        tags,
        summary: 'Set the total canceled quantity of order lines',
        description:
          '`canceledQuantity` is the desired absolute total of the line; repeating a request cancels nothing more. All or nothing.',
        params: RefParams('orderReference'),
        body: CancelBody,
        response: { 204: Type.Null(), ...errors(403, 404, 409) },
      },
    },
    async (req, reply) => {
      await s.orders.cancel(org(req), req.params.orderReference, req.body.orderlines);
      return reply.status(204).send(null);
    },
  );

  r.put(
    '/orders/:orderReference/dropship-address',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'changeDropshipAddress',
        tags,
        summary: 'Replace the dropship address of an open order',
        params: RefParams('orderReference'),
        body: AddressChangeBody,
        response: { 204: Type.Null(), ...errors(403, 404, 409) },
      },
    },
    async (req, reply) => {
      await s.orders.changeAddress(org(req), req.params.orderReference, req.body.dropshipAddress);
      return reply.status(204).send(null);
    },
  );

  r.get(
    '/addresses/:addressReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getAddress',
        tags,
        summary: 'A dropship address',
        params: RefParams('addressReference'),
        response: { 200: Open({ address: AddressOut }), ...errors(404) },
      },
    },
    async (req) => ({ address: await s.orders.address(org(req), req.params.addressReference) }),
  );

  r.get(
    '/utilities/lookup-order-reference-by-custom-identifier',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'lookupOrderByCustomIdentifier',
        tags,
        summary: 'Find an order by its customIdentifier',
        querystring: LookupQuery,
        response: { 200: Open({ orderReference: Reference('Order') }), ...errors(404) },
      },
    },
    async (req) => s.orders.lookupByCustomIdentifier(org(req), req.query.customIdentifier),
  );

  r.post(
    '/quote',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'quoteShipping',
        tags,
        summary: 'Shipping options and prices for a prospective order',
        description: 'Nothing is stored. The first option is the level an order with these fields would ship with.',
        body: QuoteBody,
        response: { 200: QuoteOut, ...errors(403) },
      },
    },
    async (req) => s.orders.quote(org(req), req.body),
  );
}

import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Nullable, Open, RefParams, Reference, Strict, Timestamp, Type, errors } from '../../platform/http/schemas.ts';
import type { Services } from '../../services.ts';
import { KindEnum, LevelEnum } from '../orders/schemas.ts';

const Shipment = Open({
  reference: Reference('Shipment'),
  shippingKind: KindEnum,
  level: LevelEnum,
  shipped: Timestamp,
  addressReference: Reference('Address'),
  orders: Type.Array(Open({ reference: Reference('Order') })),
  carrier: Type.Optional(Nullable(Type.String({ description: 'tracked and express only' }))),
  trackingNumber: Type.Optional(Nullable(Type.String({ description: 'tracked and express only' }))),
  trackingUrl: Type.Optional(
    Nullable(Type.String({ description: 'tracked and express only: the brand-styled tracking page' })),
  ),
});

const OrderRefs = Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: 100 });

export function shipmentsRoutes(app: FastifyInstance, s: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

  r.get(
    '/shipments/:shipmentReference',
    {
      schema: {
        operationId: 'getShipment',
        tags: ['Shipments'],
        summary: 'One shipment',
        params: RefParams('shipmentReference'),
        response: { 200: Open({ shipment: Shipment }), ...errors(404) },
      },
    },
    async (req) => ({ shipment: await s.shipments.get(org(req), req.params.shipmentReference) }),
  );

  // Fulfilment stand-ins so partners can run the whole lifecycle without a factory.
  if (s.config.env !== 'test') return;
  const tags = ['Test helpers'];
  r.post(
    '/test-helpers/orders/:orderReference/start-production',
    {
      schema: {
        operationId: 'testStartProduction',
        tags,
        summary: 'Test environment: move a pending or preorder order into production',
        params: RefParams('orderReference'),
        response: { 204: Type.Null(), ...errors(404, 409) },
      },
    },
    async (req, reply) => {
      await s.orders.startProduction(org(req), req.params.orderReference);
      return reply.status(204).send(null);
    },
  );
  r.post(
    '/test-helpers/shipments',
    {
      schema: {
        operationId: 'testCreateShipment',
        tags,
        summary: 'Test environment: ship orders in production as one shipment',
        description:
          'One dropship order, or several combined orders of one store. `shippedAt` may lie in the past. Fires the order-updated callback and the webhooks.',
        body: Strict({
          shipment: Strict({
            orderReferences: OrderRefs,
            shippedAt: Type.Optional(Type.String({ format: 'date-time' })),
            carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
          }),
        }),
        response: { 200: Open({ shipment: Open({ reference: Reference('Shipment') }) }), ...errors(409) },
      },
    },
    async (req) => ({ shipment: await s.shipments.ship(org(req), req.body.shipment) }),
  );
}

/** Production fulfilment through the operator API (and the CLI on top of it). */
export function shipmentsOperatorRoutes(app: FastifyInstance, s: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/orders/:orderReference/start-production',
    { schema: { params: RefParams('orderReference') } },
    async (req, reply) => {
      await s.orders.startProduction(null, req.params.orderReference);
      return reply.status(204).send(null);
    },
  );
  r.post(
    '/shipments',
    {
      schema: {
        body: Strict({
          orderReferences: OrderRefs,
          carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
          trackingNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          shippedAt: Type.Optional(Type.String({ format: 'date-time' })),
        }),
      },
    },
    async (req) => ({ shipment: await s.shipments.ship(null, req.body, 'body') }),
  );
}

import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  Nullable,
  Open,
  RefParams,
  Reference,
  type Static,
  Strict,
  Timestamp,
  Type,
  errors,
} from '../../platform/http/schemas.ts';
import { CARRIER_DOCUMENT_KINDS, type CarrierDocument } from './announce.ts';
import { TRACKING_STATUSES } from './repo.ts';
import type { ShipmentsRouteDeps } from './deps.ts';
import type { ShipmentsService } from './service.ts';
import { AddressIn, KindEnum, LevelEnum } from '../shipping/schemas.ts';

const TrackingStatusEnum = Type.String({
  enum: [...TRACKING_STATUSES],
  description: TRACKING_STATUSES.map((t) => `\`${t}\``).join(', '),
});
const TrackingEvent = Open({
  status: TrackingStatusEnum,
  occurred: Timestamp,
  location: Nullable(Type.String()),
  description: Nullable(Type.String()),
});
const TrackingEventIn = Strict({
  status: TrackingStatusEnum,
  occurred: Type.Optional(
    Type.String({ format: 'date-time', description: 'when it happened (default: now); not before the shipment left' }),
  ),
  location: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
});
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
  trackingStatus: Nullable({
    ...TrackingStatusEnum,
    description: 'Extension: the latest tracking event by when it happened; null before the first',
  }),
  trackingEvents: Type.Array(TrackingEvent, {
    description: 'Extension: the carrier events, oldest first (empty for basic shipments)',
  }),
});

const CarrierEventIn = Strict({
  shipmentReference: Type.Optional(Type.String({ maxLength: 200 })),
  trackingNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  carrierEventId: Type.String({ minLength: 1, maxLength: 200, description: "the carrier's own id of the event" }),
  status: Type.String({ maxLength: 50 }),
  occurred: Type.String({ format: 'date-time' }),
  location: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
});

const OrderRefs = Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: 100 });

type RouteDeps = ShipmentsRouteDeps & { shipments: ShipmentsService };

export function shipmentsRoutes(app: FastifyInstance, s: RouteDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

  r.get(
    '/shipments/:shipmentReference',
    {
      config: { access: 'read' },
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
      config: { access: 'write' },
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
      config: { access: 'write' },
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
  r.post(
    '/test-helpers/shipments/:shipmentReference/tracking-events',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'testAddTrackingEvents',
        tags,
        summary: 'Test environment: carrier tracking events for a shipment',
        description:
          'One event (`trackingEvent`) or a scripted journey (`trackingEvents`), all or nothing. Fires `shipment.tracking_updated`, and `shipment.delivered` when the parcel arrives. An event may lie in the past but not before the shipment left; a late event takes its place in time and never moves a delivered parcel back.',
        params: RefParams('shipmentReference'),
        body: Type.Union([
          Strict({ trackingEvent: TrackingEventIn }),
          Strict({ trackingEvents: Type.Array(TrackingEventIn, { minItems: 1, maxItems: 50 }) }),
        ]),
        response: { 200: Open({ shipment: Shipment }), ...errors(404, 409) },
      },
    },
    async (req) => {
      const b = req.body as {
        trackingEvent?: Static<typeof TrackingEventIn>;
        trackingEvents?: Static<typeof TrackingEventIn>[];
      };
      const [list, field] = b.trackingEvents
        ? [b.trackingEvents, 'body.trackingEvents']
        : [[b.trackingEvent!], 'body.trackingEvent'];
      const shipment = await s.shipments.scriptTracking(org(req), req.params.shipmentReference, list, field);
      return { shipment };
    },
  );
}

/** Production fulfilment through the operator API (and the CLI on top of it). */
export function shipmentsOperatorRoutes(app: FastifyInstance, s: RouteDeps): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/orders/:orderReference/start-production',
    { config: { access: 'operator' }, schema: { params: RefParams('orderReference') } },
    async (req, reply) => {
      await s.orders.startProduction(null, req.params.orderReference);
      return reply.status(204).send(null);
    },
  );
  r.post(
    '/shipments',
    {
      config: { access: 'operator' },
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
  // A parcel the carrier refused, announced again (after the address was put right).
  r.post(
    '/shipments/:shipmentReference/announce',
    { config: { access: 'operator' }, schema: { params: RefParams('shipmentReference') } },
    async (req, reply) => {
      await s.shipments.announce.retry(req.params.shipmentReference);
      return reply.status(202).send({ shipment: { reference: req.params.shipmentReference, labelState: 'pending' } });
    },
  );
  // A refused or returned parcel's address put right (decision 0420).
  r.put(
    '/shipments/:shipmentReference/address',
    {
      config: { access: 'operator' },
      schema: { params: RefParams('shipmentReference'), body: Strict({ address: AddressIn }) },
    },
    async (req, reply) => {
      const state = await s.shipments.announce.correctAddress(req.params.shipmentReference, req.body.address);
      // A refused parcel is announced again (202); a returned one keeps the address for its replacement.
      if (state === 'returned') return { shipment: { reference: req.params.shipmentReference } };
      return reply.status(202).send({ shipment: { reference: req.params.shipmentReference, labelState: 'pending' } });
    },
  );
  // The carrier's label (PDF, ZPL) and customs declaration, as the console links them.
  r.get(
    '/shipments/:shipmentReference/carrier-documents/:kind',
    {
      config: { access: 'operator' },
      schema: {
        params: Strict({
          shipmentReference: Type.String({ maxLength: 200 }),
          kind: Type.String({ enum: CARRIER_DOCUMENT_KINDS }),
        }),
      },
    },
    async (req, reply) => {
      const doc = await s.shipments.announce.document(req.params.shipmentReference, req.params.kind as CarrierDocument);
      return reply
        .header('content-type', doc.type)
        .header('content-disposition', `attachment; filename="${doc.filename}"`)
        .header('cache-control', 'private, no-cache')
        .send(doc.bytes);
    },
  );
  // A carrier feed: each event is judged on its own, so one bad event does not lose the batch.
  r.post(
    '/tracking-events',
    {
      config: { access: 'operator' },
      schema: {
        body: Strict({ trackingEvents: Type.Array(CarrierEventIn, { minItems: 1, maxItems: 1000 }) }),
      },
    },
    async (req) => ({ results: await s.shipments.ingestTracking(req.body.trackingEvents) }),
  );
}

/** Sendcloud's parcel-status webhooks, at the root: no API key, each is signed over its raw body. */
export function carrierWebhookRoutes(app: FastifyInstance, s: { shipments: ShipmentsService }): void {
  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(/^application\/json/, { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.post(
      '/integrations/sendcloud/webhooks',
      { config: { access: 'public' as const }, schema: { hide: true } },
      async (req) => {
        const raw = typeof req.body === 'string' ? req.body : '';
        const sig = req.headers['sendcloud-signature'];
        const r = await s.shipments.receiveSendcloudWebhook(raw, typeof sig === 'string' ? sig : undefined);
        return { received: true, ...r };
      },
    );
  });
}

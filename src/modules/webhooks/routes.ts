import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Open, Page, RefParams, Strict, Type, errors, PageQuery } from '../../platform/http/schemas.ts';
import type { WebhooksService } from './service.ts';
import {
  CreateEndpoint,
  DeliveriesQuery,
  Event,
  EventsQuery,
  UpdateEndpoint,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './schemas.ts';

const tags = ['Webhooks'];
const Empty = Type.Null({ description: 'No content' });

const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

/** Webhook endpoints, the delivery log and the events list. */
export function webhookRoutes(app: FastifyInstance, s: { webhooks: WebhooksService }): void {
  endpointRoutes(app, s.webhooks);
  deliveryLogRoutes(app, s.webhooks);
}

/** Adding, changing, removing and testing an endpoint, and rotating its secret. */
function endpointRoutes(app: FastifyInstance, w: WebhooksService): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/webhook-endpoints',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Add a webhook endpoint; the answer carries its signing secret (shown once)',
        body: CreateEndpoint,
        response: { 200: Open({ webhookEndpoint: WebhookEndpointWithSecret }), ...errors(403, 409) },
      },
    },
    async (req) => ({ webhookEndpoint: await w.createEndpoint(org(req), req.body.webhookEndpoint) }),
  );
  r.get(
    '/webhook-endpoints',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: 'Webhook endpoints, newest first',
        querystring: Strict(PageQuery),
        response: { 200: Page('webhookEndpoints', WebhookEndpoint), ...errors() },
      },
    },
    async (req) => w.listEndpoints(org(req), req.query),
  );
  r.get(
    '/webhook-endpoints/:webhookEndpointReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getWebhookEndpoint',
        tags,
        summary: 'One webhook endpoint',
        params: RefParams('webhookEndpointReference'),
        response: { 200: Open({ webhookEndpoint: WebhookEndpoint }), ...errors(404) },
      },
    },
    async (req) => ({ webhookEndpoint: await w.endpoint(org(req), req.params.webhookEndpointReference) }),
  );
  r.patch(
    '/webhook-endpoints/:webhookEndpointReference',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        summary: 'Change URL, event types, description or enabled',
        params: RefParams('webhookEndpointReference'),
        body: UpdateEndpoint,
        response: { 200: Open({ webhookEndpoint: WebhookEndpoint }), ...errors(403, 404) },
      },
    },
    async (req) => ({
      webhookEndpoint: await w.updateEndpoint(org(req), req.params.webhookEndpointReference, req.body.webhookEndpoint),
    }),
  );
  r.delete(
    '/webhook-endpoints/:webhookEndpointReference',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Delete a webhook endpoint; queued deliveries to it stop',
        params: RefParams('webhookEndpointReference'),
        response: { 204: Empty, ...errors(403, 404) },
      },
    },
    async (req, reply) => {
      await w.deleteEndpoint(org(req), req.params.webhookEndpointReference);
      return reply.status(204).send(null);
    },
  );
  r.post(
    '/webhook-endpoints/:webhookEndpointReference/rotate-secret',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        tags,
        summary: 'New signing secret; the old one also signs for 24 hours',
        params: RefParams('webhookEndpointReference'),
        response: { 200: Open({ webhookEndpoint: WebhookEndpointWithSecret }), ...errors(403, 404) },
      },
    },
    async (req) => ({ webhookEndpoint: await w.rotateSecret(org(req), req.params.webhookEndpointReference) }),
  );
  r.post(
    '/webhook-endpoints/:webhookEndpointReference/test',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'testWebhookEndpoint',
        tags,
        summary: 'Send a `ping` event now and return its delivery',
        params: RefParams('webhookEndpointReference'),
        response: { 200: Open({ webhookDelivery: WebhookDelivery }), ...errors(403, 404) },
      },
    },
    async (req) => ({ webhookDelivery: await w.testEndpoint(org(req), req.params.webhookEndpointReference) }),
  );
}

/** The delivery log (with resending) and the events list. */
function deliveryLogRoutes(app: FastifyInstance, w: WebhooksService): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/webhook-deliveries',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'The delivery log, newest first',
        querystring: DeliveriesQuery,
        response: { 200: Page('webhookDeliveries', WebhookDelivery), ...errors() },
      },
    },
    async (req) => w.listDeliveries(org(req), req.query),
  );
  r.get(
    '/webhook-deliveries/:webhookDeliveryReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getWebhookDelivery',
        tags,
        summary: 'One delivery with its attempts',
        params: RefParams('webhookDeliveryReference'),
        response: { 200: Open({ webhookDelivery: WebhookDelivery }), ...errors(404) },
      },
    },
    async (req) => ({ webhookDelivery: await w.delivery(org(req), req.params.webhookDeliveryReference) }),
  );
  r.post(
    '/webhook-deliveries/:webhookDeliveryReference/resend',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'resendWebhookDelivery',
        tags,
        summary: 'Deliver the same event (same webhook-id) to the same endpoint again, as a new delivery',
        params: RefParams('webhookDeliveryReference'),
        response: { 200: Open({ webhookDelivery: WebhookDelivery }), ...errors(403, 404, 409) },
      },
    },
    async (req) => ({ webhookDelivery: await w.resend(org(req), req.params.webhookDeliveryReference) }),
  );

  r.get(
    '/events',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listEvents',
        tags,
        summary: 'Events of the last 30 days, newest first (catch up without webhooks)',
        querystring: EventsQuery,
        response: { 200: Page('events', Event), ...errors() },
      },
    },
    async (req) => w.listEvents(org(req), req.query),
  );
  r.get(
    '/events/:eventReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getEvent',
        tags,
        summary: 'One event, as it was delivered',
        params: RefParams('eventReference'),
        response: { 200: Open({ event: Event }), ...errors(404) },
      },
    },
    async (req) => ({ event: await w.event(org(req), req.params.eventReference) }),
  );
}

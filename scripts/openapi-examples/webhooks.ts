import { type Flow, MISSING } from './recorder.ts';

/** An endpoint, a test delivery, the events of the flow before it, and a triggered test event. */
export async function captureWebhooks({ t, r, receiverUrl }: Flow): Promise<void> {
  const endpoint = await r.send(
    'createWebhookEndpoint',
    'POST',
    '/v2/webhook-endpoints',
    {
      body: {
        webhookEndpoint: {
          url: receiverUrl,
          eventTypes: ['order.created', 'shipment.created'],
          description: 'Order sync',
        },
      },
    },
    200,
  );
  await r.send(
    'createWebhookEndpoint',
    'POST',
    '/v2/webhook-endpoints',
    { body: { webhookEndpoint: { url: 'ftp://example.com', eventTypes: ['order.created'] } } },
    400,
  );
  const ours = `/v2/webhook-endpoints/${endpoint.data.webhookEndpoint.reference}`;
  const unknown = `/v2/webhook-endpoints/${MISSING('Webhookendpoint')}`;
  await r.send('listWebhookEndpoints', 'GET', '/v2/webhook-endpoints?limit=2', {}, 200);
  await r.send('listWebhookEndpoints', 'GET', '/v2/webhook-endpoints?limit=0', {}, 400);
  await r.send('getWebhookEndpoint', 'GET', ours, {}, 200);
  await r.send('getWebhookEndpoint', 'GET', unknown, {}, 404);
  const describe = { body: { webhookEndpoint: { description: 'Order and shipment sync' } } };
  await r.send('updateWebhookEndpoint', 'PATCH', ours, describe, 200);
  await r.send('updateWebhookEndpoint', 'PATCH', unknown, { body: { webhookEndpoint: { enabled: false } } }, 404);
  await r.send('testWebhookEndpoint', 'POST', `${ours}/test`, {}, 200);
  await r.send('testWebhookEndpoint', 'POST', `${unknown}/test`, {}, 404);
  await t.s.worker.drain();
  await r.send('rotateWebhookEndpointSecret', 'POST', `${ours}/rotate-secret`, {}, 200);
  await r.send('rotateWebhookEndpointSecret', 'POST', `${unknown}/rotate-secret`, {}, 404);
  const endpointReference = endpoint.data.webhookEndpoint.reference;
  const deliveries = await r.send(
    'listWebhookDeliveries',
    'GET',
    `/v2/webhook-deliveries?limit=2&endpointReference=${endpointReference}`,
    {},
    200,
  );
  await r.send('listWebhookDeliveries', 'GET', '/v2/webhook-deliveries?status=nonsense', {}, 400);
  const delivery = `/v2/webhook-deliveries/${deliveries.data.webhookDeliveries[0].reference}`;
  const noDelivery = `/v2/webhook-deliveries/${MISSING('Webhookdelivery')}`;
  await r.send('getWebhookDelivery', 'GET', delivery, {}, 200);
  await r.send('getWebhookDelivery', 'GET', noDelivery, {}, 404);
  await r.send('resendWebhookDelivery', 'POST', `${delivery}/resend`, {}, 200);
  await r.send('resendWebhookDelivery', 'POST', `${noDelivery}/resend`, {}, 404);
  const events = await r.send('listEvents', 'GET', '/v2/events?limit=2&type=order.created', {}, 200);
  await r.send('listEvents', 'GET', '/v2/events?createdAfter=yesterday', {}, 400);
  await r.send('getEvent', 'GET', `/v2/events/${events.data.events[0].reference}`, {}, 200);
  await r.send('getEvent', 'GET', `/v2/events/${MISSING('Event')}`, {}, 404);
  await r.send('deleteWebhookEndpoint', 'DELETE', ours, {}, 204);
  await r.send('deleteWebhookEndpoint', 'DELETE', ours, {}, 404);
  await t.s.worker.drain();

  const trigger = (type: string) => ({ body: { event: { type } } });
  await r.send('testTriggerEvent', 'POST', '/v2/test-helpers/events/trigger', trigger('order.shipped'), 200);
  await r.send('testTriggerEvent', 'POST', '/v2/test-helpers/events/trigger', trigger('order.lost'), 400);
}

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Open, Reference, Strict, Type, errors } from '../../platform/http/schemas.ts';
import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import { type ApiCall, TRIGGERABLE, runTrigger } from './scenario.ts';

/** Test environment only: `POST /v2/test-helpers/events/trigger` (production: 404). */
export function triggerRoutes(app: FastifyInstance, s: { clock: Clock; config: Pick<Config, 'env'> }): void {
  if (s.config.env !== 'test') return;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/test-helpers/events/trigger',
    {
      schema: {
        operationId: 'testTriggerEvent',
        tags: ['Test helpers'],
        summary: 'Test environment: make an event really happen on new test objects',
        description: `Creates what the event needs through the ordinary API calls, with your key (an artwork, an order, production, a shipment, tracking events, a claim, a decision), so the event, its webhooks and the order-updated callback happen exactly as in real use. Each call it makes counts against your rate limits. Types: ${TRIGGERABLE.map((t) => `\`${t}\``).join(', ')}.`,
        body: Strict({
          event: Strict({ type: Type.String({ enum: [...TRIGGERABLE], description: 'the event type to trigger' }) }),
        }),
        response: {
          200: Open({
            trigger: Open({
              type: Type.String(),
              objects: Open(
                {
                  image: Reference('Image'),
                  order: Reference('Order'),
                  shipment: Type.Optional(Reference('Shipment')),
                  claim: Type.Optional(Reference('Claim')),
                },
                { description: 'What the trigger created' },
              ),
            }),
          }),
          ...errors(409),
        },
      },
    },
    async (req) => {
      const key = String(req.headers['x-service-secret-key']);
      const call: ApiCall = async (method, path, body) => {
        const res = await app.inject({
          method,
          url: path,
          headers: {
            'x-service-secret-key': key,
            'x-request-id': `${req.id}-trigger`,
            ...(body === undefined
              ? {}
              : { 'content-type': Buffer.isBuffer(body) ? 'application/octet-stream' : 'application/json' }),
          },
          ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
        });
        let data: unknown = null;
        try {
          data = res.json();
        } catch {}
        return { status: res.statusCode, data };
      };
      return {
        trigger: {
          type: req.body.event.type,
          objects: await runTrigger(call, req.body.event.type as never, s.clock.now()),
        },
      };
    },
  );
}

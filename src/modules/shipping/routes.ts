import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../platform/http/schemas.ts';
import type { Services } from '../../services.ts';
import { QuoteBody, QuoteOut } from './schemas.ts';

export function shippingRoutes(app: FastifyInstance, s: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/quote',
    {
      config: { readOnlyAllowed: true },
      schema: {
        operationId: 'quoteShipping',
        tags: ['Orders'],
        summary: 'Shipping options and prices for a prospective order',
        description: 'Nothing is stored. The first option is the level an order with these fields would ship with.',
        body: QuoteBody,
        response: { 200: QuoteOut, ...errors(403) },
      },
    },
    async (req) => s.shipping.quote(req.principal.organizationId, req.body),
  );
}

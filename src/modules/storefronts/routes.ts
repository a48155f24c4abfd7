import type { FastifyInstance } from 'fastify';
import type { StorefrontsService } from './service.ts';
import { CALLBACK_PATH } from './shopify/version.ts';

/** Shopify orders are bigger than API bodies: a few hundred lines with their tax and discount detail. */
const WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * Shopify's calls into the service, at the root (no API key: each is signed with the app's secret).
 * The bodies are kept as the raw text they were signed over.
 */
export function storefrontRoutes(app: FastifyInstance, s: { storefronts: StorefrontsService }) {
  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      /^application\/json/,
      { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_req, body, done) => done(null, body),
    );
    const opts = { config: { access: 'public' as const }, schema: { hide: true }, bodyLimit: WEBHOOK_BODY_LIMIT };

    scope.post('/integrations/shopify/webhooks', opts, async (req) => {
      const r = await s.storefronts.receiveWebhook(typeof req.body === 'string' ? req.body : '', req.headers);
      return { received: true, duplicate: r.duplicate };
    });
    scope.post('/integrations/shopify/fulfillment_order_notification', opts, async (req) => {
      const r = await s.storefronts.receiveNotification(typeof req.body === 'string' ? req.body : '', req.headers);
      return { received: true, duplicate: r.duplicate };
    });
  });

  app.get(CALLBACK_PATH, { config: { access: 'public' }, schema: { hide: true } }, async (req, reply) => {
    const query = Object.fromEntries(
      Object.entries(req.query as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === 'string',
      ),
    );
    const { storeReference } = await s.storefronts.completeConnect(query);
    return reply.redirect(`/dashboard/shopify/${storeReference}?connected=1`, 303);
  });
}

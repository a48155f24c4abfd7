import { billingOperatorRoutes } from './modules/billing/routes.ts';
import { bankOperatorRoutes } from './modules/billing/routes-bank.ts';
import { billingRoutes } from './modules/billing/routes-partner.ts';
import { floorOperatorRoutes } from './modules/production/floor-routes.ts';
import { stationsOperatorRoutes } from './modules/production/stations-routes.ts';
import { productionOperatorRoutes } from './modules/production/routes.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { installAuth, keyPrefix, requireDeclaredAccess } from './platform/http/auth.ts';
import { installFavicon } from './platform/http/favicon.ts';
import { installDrain, isDraining } from './platform/http/drain.ts';
import { requestLogOperatorRoutes } from './modules/requestlog/routes.ts';
import { installRequestLog } from './modules/requestlog/recorder.ts';
import { runInScope } from './platform/context.ts';
import { uuidV7 } from './platform/ids.ts';
import { installErrorHandling } from './platform/http/error-handler.ts';
import {
  clientErrorHandler,
  documentTransportErrors,
  frameworkErrors,
  rejectNulCharacters,
} from './platform/http/hardening.ts';
import { installMetrics } from './platform/metrics.ts';
import { installIdempotency } from './platform/http/idempotency.ts';
import { installJsonParser, installStrictRoutes } from './platform/http/strictness.ts';
import { ErrorBody, Open, Type } from './platform/http/schemas.ts';
import { type SchemaCompile, serializersFor, validatorsFor } from './platform/http/schema-compile.ts';
import { attachExamples } from './openapi/examples.ts';
import { shortenSummaries } from './openapi/labels.ts';
import { TAGS } from './openapi/tags.ts';
import { installApiReference } from './openapi/reference.ts';
import { renderingOperatorRoutes, renderingRoutes } from './modules/rendering/routes.ts';
import { photoSceneRoutes } from './modules/rendering/photo/routes.ts';
import type { Services } from './services.ts';
import { seedDemoOnce } from './seed/demo-keys.ts';
import { catalogOperatorRoutes, catalogRoutes } from './modules/catalog/routes.ts';
import { organizationRoutes } from './modules/organization/routes.ts';
import { imagesRoutes } from './modules/images/routes.ts';
import { operatorRoutes } from './modules/operator/routes.ts';
import { ordersRoutes } from './modules/orders/routes.ts';
import { carrierWebhookRoutes, shipmentsOperatorRoutes, shipmentsRoutes } from './modules/shipments/routes.ts';
import { trackingRoutes } from './modules/shipments/tracking.ts';
import { storefrontRoutes } from './modules/storefronts/routes.ts';
import { storefrontApiRoutes } from './modules/storefronts/api.ts';
import { webhookRoutes } from './modules/webhooks/routes.ts';
import { testClockRoutes } from './modules/testclocks/routes.ts';
import { realNowMs } from './platform/clock.ts';
import { rememberSecret } from './platform/redact.ts';
import { triggerRoutes } from './modules/triggers/routes.ts';
import { dashboardOperatorRoutes, dashboardRoutes } from './modules/dashboard/routes.ts';
import { claimsOperatorRoutes, claimsPublicRoutes, claimsRoutes } from './modules/claims/routes.ts';

export interface AppOptions {
  operatorToken: string;
  /** Log requests through the services' logger (off in tests). */
  logRequests?: boolean;
  /** When the routes' schemas are compiled (default `at-start`; test apps: `on-first-use`). */
  schemas?: SchemaCompile;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

type Mount = (app: FastifyInstance, s: Services) => void;

/** Every partner-facing module, mounted under /v2 with auth, rate limits and idempotency. */
const API_MODULES: Mount[] = [
  catalogRoutes,
  imagesRoutes,
  organizationRoutes,
  billingRoutes,
  ordersRoutes,
  shipmentsRoutes,
  claimsRoutes,
  renderingRoutes,
  photoSceneRoutes,
  webhookRoutes,
  storefrontApiRoutes,
  testClockRoutes,
  triggerRoutes,
];

/** Operator routes of the modules, mounted under /operator behind the operator token. */
const OPERATOR_MODULES: Mount[] = [
  catalogOperatorRoutes,
  billingOperatorRoutes,
  bankOperatorRoutes,
  shipmentsOperatorRoutes,
  claimsOperatorRoutes,
  renderingOperatorRoutes,
  dashboardOperatorRoutes,
  productionOperatorRoutes,
  floorOperatorRoutes,
  stationsOperatorRoutes,
  requestLogOperatorRoutes,
];

/** Pages and files without an API key (tracking pages, evidence files, dashboard), at the root. */
const PUBLIC_MODULES: Mount[] = [
  trackingRoutes,
  claimsPublicRoutes,
  dashboardRoutes,
  storefrontRoutes,
  carrierWebhookRoutes,
];

export async function buildApp(s: Services, opts: AppOptions): Promise<FastifyInstance> {
  rememberSecret(opts.operatorToken);
  const app = Fastify({
    ...(opts.logRequests ? { loggerInstance: s.log } : { logger: false }),
    bodyLimit: s.config.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : uuidV7(realNowMs(s.clock));
    },
    return503OnClosing: true,
    // Client addresses (throttles, logs) from X-Forwarded-For only behind a proxy we were told of.
    trustProxy: s.config.trustProxy,
    frameworkErrors,
    clientErrorHandler,
    forceCloseConnections: 'idle',
    connectionTimeout: 60_000,
    requestTimeout: 120_000,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    ...serializersFor(opts.schemas ?? 'at-start'),
  });
  requireDeclaredAccess(app);
  app.setValidatorCompiler(validatorsFor(opts.schemas ?? 'at-start'));
  // JSON is the only body type outside the upload routes: text/plain must be a 415 like any other.
  app.removeContentTypeParser('text/plain');
  installJsonParser(app);
  app.addSchema(ErrorBody);
  // Callback hooks, not async ones, on every request: an async hook costs a promise and a turn of
  // the microtask queue each time.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  installDrain(app);
  const notFound = installErrorHandling(app);
  documentTransportErrors(app);
  rejectNulCharacters(app);
  installMetrics(app, s, opts.operatorToken);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Print-on-demand Partner API',
        version: '2.0.0',
        description:
          'Catalog, images, orders, shipments, claims and mockup renders for print-on-demand phone cases and accessories. Every request carries `X-Service-Secret-Key`.',
        contact: {
          name: 'Partner API support',
          url: `${s.config.publicBaseUrl}/dashboard`,
          ...(s.config.supportEmail ? { email: s.config.supportEmail } : {}),
        },
        // The SDK, MIT as well, is generated from it: clients may generate and ship code from the document.
        license: { name: 'MIT', identifier: 'MIT' },
      },
      tags: TAGS,
      servers: [{ url: s.config.publicBaseUrl }],
      components: { securitySchemes: { secretKey: { type: 'apiKey', in: 'header', name: 'X-Service-Secret-Key' } } },
      security: [{ secretKey: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _base, _frag, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: (document) => shortenSummaries(attachExamples(document)),
  });

  app.get('/healthz', { config: { access: 'public' }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { access: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    if (isDraining(app)) return reply.status(503).send({ status: 'draining' });
    try {
      await s.db.query('SELECT 1');
      return { status: 'ready', database: 'ok' };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: 'unreachable' });
    }
  });

  await app.register(
    async (v2) => {
      installAuth(v2, { config: s.config, keys: s.keys, rateLimits: s.rateLimits });
      // Real time, not an organization's test clock: the log says when a request reached the service.
      installRequestLog(v2, s.requestLog, () => realNowMs(s.clock));
      installIdempotency(v2, { db: s.db, clock: s.clock });
      installStrictRoutes(v2);
      // Test clocks: wait for an advancing clock, then run the handler in its organization's scope
      // (only there: a scope costs every promise, see platform/context.ts).
      if (s.testClocks) {
        const clocks = s.testClocks;
        v2.addHook('preHandler', async () => clocks.ready());
        v2.addHook('preHandler', (req, _reply, done) => runInScope(done, req.principal?.organizationId ?? null));
      }
      // Unknown /v2 paths answer after authentication and rate limiting, like every /v2 request.
      v2.setNotFoundHandler(notFound);
      v2.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
      for (const mount of API_MODULES) mount(v2, s);
    },
    { prefix: '/v2' },
  );

  await app.register(
    async (op) => {
      operatorRoutes(op, { ...s, seed: (o) => seedDemoOnce(s, s.config.dataDir, o) }, opts.operatorToken);
      for (const mount of OPERATOR_MODULES) mount(op, s);
    },
    { prefix: '/operator' },
  );
  await app.register(async (root) => {
    for (const mount of PUBLIC_MODULES) mount(root, s);
  });

  installApiReference(app, `${keyPrefix(s.config.env)}…`);
  installFavicon(app);
  // What the request log still holds in memory is written before the process lets go of the database.
  app.addHook('onClose', async () => s.requestLog.flush());

  return app;
}

export const MessageBody = Open({ message: Type.String() });

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, mustFind } from '../../platform/errors.ts';
import { toApiError } from '../../platform/http/error-handler.ts';
import { Strict, Type } from '../../platform/http/schemas.ts';
import type { DashboardServices } from './router.ts';
import { consolePages } from './console.ts';
import { productPages } from './product-page.ts';
import { consoleShipmentPages } from './console-shipments.ts';
import { consoleOrgPages } from './console-orgs.ts';
import { productionQueuePages } from './production-queue.ts';
import { printStation } from './print-station.ts';
import { stationPages } from './stations.ts';
import { productionOverviewPage } from './production-overview.ts';
import { CSS, JS } from './layout.ts';
import { partnerActivityPages } from './partner-activity.ts';
import { partnerBillingPages } from './partner-billing.ts';
import { consoleStockPages } from './console-stock.ts';
import { consoleBillingPages } from './console-billing.ts';
import { partnerIntegrationPages } from './partner-integration.ts';
import { partnerShopifyPages } from './partner-shopify.ts';
import { partnerScenePages } from './partner-scenes.ts';
import { partnerStorePages, partnerUserPages } from './partner-structure.ts';
import { partnerBrandPages } from './partner-brands.ts';
import { partnerAccountPages } from './partner-accounts.ts';
import { requestLogPages } from './request-log.ts';
import { overviewPages } from './overview.ts';
import { LOGIN_CSRF_COOKIE } from './cookies.ts';
import { DashRouter, errorPage, formToken, sendHtml } from './router.ts';
import { LOGO_PREFIX } from './logos.ts';
import { csrfRefused, installFormGate, sameToken } from './form-gate.ts';
import { signInRoutes } from './sign-in.ts';

/** The POST paths of the dashboard and console per services object, for tests that must cover all of them. */
export const dashboardPostPaths = new WeakMap<object, string[]>();

/**
 * The partner dashboard (/dashboard) and the operator console (/console): server-rendered pages in
 * their own scope, so cookies and form bodies are understood here and nowhere else.
 */
export function dashboardRoutes(root: FastifyInstance, s: DashboardServices): void {
  const postPaths: string[] = [];
  dashboardPostPaths.set(s, postPaths);
  root.register(async (scope) => {
    await scope.register(cookie);
    await scope.register(formbody, { bodyLimit: 256 * 1024 });
    // Multipart bodies are read by the file routes themselves (`DashRouter.action`'s `file`), part
    // by part, after the form gate; every other route refuses them unread (415).
    await scope.register(multipart);
    scope.decorateRequest('dashboardSession', null);
    installGuards(scope, s);
    assetRoutes(scope, s);
    signInRoutes(scope, s, postPaths);
    notFoundPages(scope, s);
    registerPages(new DashRouter(scope, s, postPaths));
  });
}

/**
 * Headers of every answer, the session and role of every request and the CSRF token of every POST
 * (all before any handler runs), and errors answered as pages.
 */
function installGuards(scope: FastifyInstance, s: DashboardServices): void {
  scope.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true } as typeof route.schema;
  });
  scope.addHook('onRequest', async (req, reply) => {
    reply.header(
      'content-security-policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    if (!req.url.startsWith(LOGO_PREFIX) && !req.url.startsWith('/dashboard/assets/'))
      reply.header('cache-control', 'no-store');
  });

  // The session, and a POST that cannot pass the CSRF check, before the body is read.
  installFormGate(scope, s.dashboard);
  // Role, and the CSRF token of every POST; both before any handler runs.
  scope.addHook('preHandler', async (req, reply) => {
    const area = req.routeOptions.config.dashboard;
    if (!area) return;
    const session = req.dashboardSession;
    if (req.method === 'POST') {
      const expected = area === 'public' ? (req.cookies[LOGIN_CSRF_COOKIE] ?? '') : (session?.csrf ?? '');
      if (!sameToken(formToken(req), expected)) throw csrfRefused();
    }
    if (area === 'public') return;
    if (!session) {
      if (req.method === 'GET') return redirectToSignIn(req, reply, area);
      throw new ApiError('unauthenticated', 'Sign in first.');
    }
    if (area === 'operator' && session.user.role !== 'operator')
      throw new ApiError('operator_only', 'The operator console is for the service’s staff only.');
    if (area === 'partner' && session.user.role !== 'partner')
      throw new ApiError(
        'partner_only',
        'This page belongs to the partner dashboard; operators use the console at /console.',
      );
  });

  scope.setErrorHandler((err, req, reply) => {
    const e = toApiError(err as Error, req);
    if (e.headers) reply.headers(e.headers);
    return sendHtml(reply, errorPage(s, req, e), e.status);
  });
}

/** The stylesheet, the script and the partners' logos. */
function assetRoutes(scope: FastifyInstance, s: DashboardServices): void {
  scope.get('/dashboard/assets/app.css', { config: { access: 'public' } }, async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(CSS),
  );
  scope.get('/dashboard/assets/app.js', { config: { access: 'public' } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(JS),
  );
  scope.get(`${LOGO_PREFIX}:file`, { config: { access: 'public' } }, async (req, reply) => {
    const file = mustFind(await s.dashboard.logoFile((req.params as { file: string }).file), 'Logo');
    return reply.type(file.contentType).header('cache-control', 'public, max-age=86400, immutable').send(file.data);
  });
}

/** Unknown pages under the two areas answer with a page, not the API's JSON. */
function notFoundPages(scope: FastifyInstance, s: DashboardServices): void {
  for (const prefix of ['/dashboard', '/console']) {
    scope.register(
      async (sub) => {
        sub.setNotFoundHandler((req, reply) =>
          sendHtml(
            reply,
            errorPage(s, req, new ApiError('not_found', `There is no page ${req.url.split('?')[0]}`)),
            404,
          ),
        );
      },
      { prefix },
    );
  }
}

/** Every page of the dashboard and the console, area by area. */
function registerPages(r: DashRouter): void {
  overviewPages(r);
  partnerStorePages(r);
  partnerBrandPages(r);
  partnerUserPages(r);
  partnerAccountPages(r);
  partnerIntegrationPages(r);
  partnerShopifyPages(r);
  partnerScenePages(r);
  partnerActivityPages(r);
  partnerBillingPages(r);
  consoleStockPages(r);
  consoleBillingPages(r);
  consoleOrgPages(r);
  consolePages(r);
  productPages(r);
  consoleShipmentPages(r);
  productionQueuePages(r);
  stationPages(r);
  printStation(r);
  productionOverviewPage(r);
  requestLogPages(r);
}

function redirectToSignIn(req: FastifyRequest, reply: FastifyReply, area: 'partner' | 'operator') {
  const base = area === 'operator' ? '/console/sign-in' : '/dashboard/sign-in';
  return reply
    .code(303)
    .header('location', `${base}?next=${encodeURIComponent(req.url)}`)
    .send();
}

/** Operator API: users are created here (and by the CLI on top of it). */
export function dashboardOperatorRoutes(app: FastifyInstance, s: DashboardServices): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const UserBody = Strict({
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  });
  r.post(
    '/organizations/:organizationReference/users',
    {
      config: { access: 'operator' },
      schema: { params: Strict({ organizationReference: Type.String({ maxLength: 200 }) }), body: UserBody },
    },
    async (req) => {
      const orgId = req.params.organizationReference;
      if (req.body.password === undefined) {
        const inv = await s.dashboard.invite(orgId, req.body.email, null);
        return { user: inv.user, invitationUrl: `${s.config.publicBaseUrl}/dashboard/invitation?token=${inv.token}` };
      }
      return {
        user: await s.dashboard.createPartnerUser(orgId, { email: req.body.email, password: req.body.password }),
      };
    },
  );
  r.get(
    '/organizations/:organizationReference/users',
    {
      config: { access: 'operator' },
      schema: { params: Strict({ organizationReference: Type.String({ maxLength: 200 }) }) },
    },
    async (req) => ({
      users: await s.dashboard.listUsers(req.params.organizationReference),
    }),
  );
  r.post(
    '/users',
    {
      config: { access: 'operator' },
      schema: {
        body: Strict({
          email: Type.String({ minLength: 3, maxLength: 254 }),
          password: Type.String({ minLength: 1, maxLength: 200 }),
        }),
      },
    },
    async (req) => ({
      user: await s.dashboard.createOperatorUser(req.body),
    }),
  );
}

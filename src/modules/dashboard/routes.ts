import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, mustFind } from '../../platform/errors.ts';
import { toApiError } from '../../platform/http/error-handler.ts';
import { Strict, Type } from '../../platform/http/schemas.ts';
import type { DashboardServices } from './router.ts';
import { consolePages } from './console.ts';
import { consoleShipmentPages } from './console-shipments.ts';
import { consoleOrgPages } from './console-orgs.ts';
import { productionQueuePages } from './production-queue.ts';
import { printStation } from './print-station.ts';
import { stationPages } from './stations.ts';
import { productionOverviewPage } from './production-overview.ts';
import { installMultipart, required, value } from './forms.ts';
import { field, form, html } from './html.ts';
import { CSS, JS, type PageContext, page } from './layout.ts';
import { partnerActivityPages } from './partner-activity.ts';
import { partnerBillingPages } from './partner-billing.ts';
import { consoleStockPages } from './console-stock.ts';
import { consoleBillingPages } from './console-billing.ts';
import { partnerIntegrationPages } from './partner-integration.ts';
import { partnerShopifyPages } from './partner-shopify.ts';
import { partnerScenePages } from './partner-scenes.ts';
import { partnerStructurePages } from './partner-structure.ts';
import { partnerAccountPages } from './partner-accounts.ts';
import { requestLogPages } from './request-log.ts';
import { overviewPages } from './overview.ts';
import { DashRouter, LOGIN_CSRF_COOKIE, SESSION_COOKIE, errorPage, formToken, sendHtml } from './router.ts';
import { LOGO_PREFIX } from './logos.ts';
import { LOGIN_TOKEN, csrfRefused, installFormGate } from './form-gate.ts';

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
};

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
    installMultipart(scope);
    scope.decorateRequest('dashboardSession', null);
    // Behind a TLS proxy the browser speaks https even when the proxy reaches us over http.
    const secure = s.config.publicBaseUrl.startsWith('https:') || s.config.trustProxy;
    const sessionCookie = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure };

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
        if (!same(formToken(req), expected)) throw csrfRefused();
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

    const sessionRedirect = (reply: FastifyReply, cookieValue: string, role: string, next?: string) => {
      reply.setCookie(SESSION_COOKIE, cookieValue, { ...sessionCookie, maxAge: 7 * 86400 });
      reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/' });
      const home = role === 'operator' ? '/console' : '/dashboard';
      const safeNext = next?.startsWith(home) && !/[\\\s]/.test(next) ? next : home;
      return reply.code(303).header('location', safeNext).send();
    };

    // A double-submit token protects the forms used before there is a session (sign-in, invitation).
    const loginToken = (req: FastifyRequest, reply: FastifyReply) => {
      let t = req.cookies[LOGIN_CSRF_COOKIE];
      if (!t || !LOGIN_TOKEN.test(t)) {
        t = randomBytes(32).toString('base64url');
        reply.setCookie(LOGIN_CSRF_COOKIE, t, { ...sessionCookie, maxAge: 3600 });
      }
      return t;
    };
    const publicCtx = (req: FastifyRequest, csrf: string, area: PageContext['area'] = 'public'): PageContext => ({
      area,
      env: s.config.env,
      csrf,
      path: req.url,
    });

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

    const signInPage = (
      req: FastifyRequest,
      csrf: string,
      area: 'dashboard' | 'console',
      opts: { error?: string; email?: string } = {},
    ) => {
      const next =
        typeof (req.query as Record<string, unknown>)?.next === 'string'
          ? String((req.query as Record<string, unknown>).next)
          : value(req.body, 'next');
      return page(
        publicCtx(req, csrf),
        area === 'console' ? 'Operator sign-in' : 'Sign in',
        html`<div class="card auth">
${form(
  `/${area}/sign-in`,
  csrf,
  html`${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
${field({ label: 'E-mail', name: 'email', type: 'email', required: true, autocomplete: 'username', value: opts.email })}
${field({ label: 'Password', name: 'password', type: 'password', required: true, autocomplete: 'current-password' })}
<button type="submit">Sign in</button>`,
  { label: 'Sign in' },
)}
<p class="help">${area === 'console' ? 'Partners sign in at ' : 'Staff of the service sign in at '}<a href="${area === 'console' ? '/dashboard/sign-in' : '/console/sign-in'}">${area === 'console' ? 'the partner dashboard' : 'the operator console'}</a>.</p></div>`,
        { error: opts.error },
      );
    };

    for (const area of ['dashboard', 'console'] as const) {
      scope.get(`/${area}/sign-in`, { config: { access: 'public', dashboard: 'public' } }, async (req, reply) => {
        if (req.dashboardSession)
          return reply
            .code(303)
            .header('location', req.dashboardSession.user.role === 'operator' ? '/console' : '/dashboard')
            .send();
        return sendHtml(reply, signInPage(req, loginToken(req, reply), area));
      });
      postPaths.push(`/${area}/sign-in`);
      scope.post(`/${area}/sign-in`, { config: { access: 'public', dashboard: 'public' } }, async (req, reply) => {
        const email = value(req.body, 'email') ?? '';
        try {
          const { cookie: c, session } = await s.dashboard.signIn({
            email,
            password: value(req.body, 'password') ?? '',
            ip: req.ip,
          });
          return sessionRedirect(reply, c, session.user.role, value(req.body, 'next'));
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          if (err.headers) reply.headers(err.headers);
          return sendHtml(
            reply,
            signInPage(req, loginToken(req, reply), area, { error: err.message, email: email.slice(0, 254) }),
            err.status,
          );
        }
      });
      postPaths.push(`/${area}/sign-out`);
      scope.post(
        `/${area}/sign-out`,
        { config: { access: 'public', dashboard: area === 'console' ? 'operator' : 'partner' } },
        async (req, reply) => {
          await s.dashboard.signOut(req.dashboardSession!);
          reply.clearCookie(SESSION_COOKIE, { path: '/' });
          return reply.code(303).header('location', `/${area}/sign-in`).send();
        },
      );
    }

    const invitationPage = (req: FastifyRequest, csrf: string, tokenValue: string, email: string, error?: string) =>
      page(
        publicCtx(req, csrf),
        'Set your password',
        html`<div class="card auth"><p>You were invited to the partner dashboard as <strong>${email}</strong>. Choose a password of at least 10 characters.</p>
${form(
  '/dashboard/invitation',
  csrf,
  html`<input type="hidden" name="token" value="${tokenValue}">
${field({ label: 'New password', name: 'password', type: 'password', required: true, autocomplete: 'new-password', help: 'At least 10 characters.' })}
${field({ label: 'Repeat the password', name: 'passwordRepeat', type: 'password', required: true, autocomplete: 'new-password' })}
<button type="submit">Set password and sign in</button>`,
)}</div>`,
        { error },
      );
    scope.get(
      '/dashboard/invitation',
      {
        config: { access: 'public', dashboard: 'public' },
        schema: { querystring: Strict({ token: Type.String({ maxLength: 200 }) }) },
      },
      async (req, reply) => {
        const t = (req.query as { token: string }).token;
        const inv = await s.dashboard.openInvitation(t);
        return sendHtml(reply, invitationPage(req, loginToken(req, reply), t, inv.email));
      },
    );
    postPaths.push('/dashboard/invitation');
    scope.post('/dashboard/invitation', { config: { access: 'public', dashboard: 'public' } }, async (req, reply) => {
      const t = required(req.body, 'token', 'The invitation token', 200);
      const inv = await s.dashboard.openInvitation(t);
      try {
        const password = value(req.body, 'password') ?? '';
        if (password !== (value(req.body, 'passwordRepeat') ?? ''))
          throw new ApiError('passwords_differ', 'The two passwords differ');
        const { cookie: c, session } = await s.dashboard.acceptInvitation(t, password);
        return sessionRedirect(reply, c, session.user.role);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        return sendHtml(reply, invitationPage(req, loginToken(req, reply), t, inv.email, err.message), err.status);
      }
    });

    // Unknown pages under the two areas answer with a page, not the API's JSON.
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

    const r = new DashRouter(scope, s, postPaths);
    overviewPages(r);
    partnerStructurePages(r);
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
    consoleShipmentPages(r);
    productionQueuePages(r);
    stationPages(r);
    printStation(r);
    productionOverviewPage(r);
    requestLogPages(r);
  });
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

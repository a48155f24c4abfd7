import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { Strict, Type } from '../../platform/http/schemas.ts';
import { LOGIN_TOKEN } from './form-gate.ts';
import { required, value } from './forms.ts';
import { field, form, html } from './html.ts';
import { type PageContext, page } from './layout.ts';
import { LOGIN_CSRF_COOKIE, SESSION_COOKIE } from './cookies.ts';
import { type DashboardServices, sendHtml } from './router.ts';

/** What the sign-in and invitation forms share: the cookies they set and the page context before a session. */
interface Entry {
  s: DashboardServices;
  scope: FastifyInstance;
  postPaths: string[];
  sessionRedirect: (reply: FastifyReply, cookieValue: string, role: string, next?: string) => FastifyReply;
  loginToken: (req: FastifyRequest, reply: FastifyReply) => string;
  publicCtx: (req: FastifyRequest, csrf: string) => PageContext;
}

/** Signing in and out of both areas, and accepting an invitation: the pages used without a session. */
export function signInRoutes(scope: FastifyInstance, s: DashboardServices, postPaths: string[]): void {
  // Behind a TLS proxy the browser speaks https even when the proxy reaches us over http.
  const secure = s.config.publicBaseUrl.startsWith('https:') || s.config.trustProxy;
  const sessionCookie = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure };

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
  const publicCtx = (req: FastifyRequest, csrf: string): PageContext => ({
    area: 'public',
    env: s.config.env,
    csrf,
    path: req.url,
  });

  const entry: Entry = { s, scope, postPaths, sessionRedirect, loginToken, publicCtx };
  for (const area of ['dashboard', 'console'] as const) areaSignIn(entry, area);
  invitationRoutes(entry);
}

const signInPage = (
  e: Entry,
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
    e.publicCtx(req, csrf),
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

/** One area's sign-in page and form, and its sign-out. */
function areaSignIn(e: Entry, area: 'dashboard' | 'console'): void {
  const { s, scope, postPaths } = e;
  scope.get(`/${area}/sign-in`, { config: { access: 'public', dashboard: 'public' } }, async (req, reply) => {
    if (req.dashboardSession)
      return reply
        .code(303)
        .header('location', req.dashboardSession.user.role === 'operator' ? '/console' : '/dashboard')
        .send();
    return sendHtml(reply, signInPage(e, req, e.loginToken(req, reply), area));
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
      return e.sessionRedirect(reply, c, session.user.role, value(req.body, 'next'));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      if (err.headers) reply.headers(err.headers);
      return sendHtml(
        reply,
        signInPage(e, req, e.loginToken(req, reply), area, { error: err.message, email: email.slice(0, 254) }),
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

const invitationPage = (
  e: Entry,
  req: FastifyRequest,
  csrf: string,
  tokenValue: string,
  email: string,
  error?: string,
) =>
  page(
    e.publicCtx(req, csrf),
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

/** An invited partner user chooses a password and is signed in. */
function invitationRoutes(e: Entry): void {
  const { s, scope, postPaths } = e;
  scope.get(
    '/dashboard/invitation',
    {
      config: { access: 'public', dashboard: 'public' },
      schema: { querystring: Strict({ token: Type.String({ maxLength: 200 }) }) },
    },
    async (req, reply) => {
      const t = (req.query as { token: string }).token;
      const inv = await s.dashboard.openInvitation(t);
      return sendHtml(reply, invitationPage(e, req, e.loginToken(req, reply), t, inv.email));
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
      return e.sessionRedirect(reply, c, session.user.role);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      return sendHtml(reply, invitationPage(e, req, e.loginToken(req, reply), t, inv.email, err.message), err.status);
    }
  });
}

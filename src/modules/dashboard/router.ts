import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { uploadTempDir, uploadTicketOf } from '../../platform/http/upload.ts';
import type { DashboardPagesDeps } from './deps.ts';
import { FORM_OVERHEAD_BYTES, type FileField, admitFileForm, readFileForm } from './form-files.ts';
import { type FormBody, value } from './forms.ts';
import { html } from './html.ts';
import { type PageContext, page } from './layout.ts';
import type { DashboardService, Session } from './service.ts';

/** What dashboard pages are given: the other modules' services they use, and the dashboard's own. */
export type DashboardServices = DashboardPagesDeps & { dashboard: DashboardService };

export type Area = 'public' | 'partner' | 'operator';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may use a dashboard route: anyone (sign-in), a partner user, or an operator. */
    dashboard?: Area;
  }
  interface FastifyRequest {
    dashboardSession: Session | null;
  }
}

export interface Ctx {
  session: Session;
  /** The partner's organization; every partner query is scoped by it. Empty for operators. */
  orgId: string;
  page: PageContext;
}

export interface PageOptions {
  error?: string | null;
  notice?: string | null;
  /** The submitted form, to fill the fields again after an error. */
  values?: FormBody;
  status?: number;
}

export type PageFn = (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => Promise<string>;
export type ActionResult = { redirect: string; notice?: string } | { html: string };

/** Route registration for dashboard and console pages: session, role, flash and error pages. */
export class DashRouter {
  constructor(
    readonly app: FastifyInstance,
    readonly s: DashboardServices,
    /** Every POST path, for the CSRF test that walks all of them. */
    readonly postPaths: string[],
  ) {}

  async context(req: FastifyRequest, area: 'partner' | 'operator'): Promise<Ctx> {
    const session = req.dashboardSession!;
    const orgId = area === 'partner' ? session.user.organization_id! : '';
    const org = area === 'partner' ? await this.s.organization.organization(orgId) : null;
    if (session.flash && req.method === 'GET') await this.s.dashboard.setFlash(session, null);
    return {
      session,
      orgId,
      page: {
        area: area === 'partner' ? 'dashboard' : 'console',
        env: this.s.config.env,
        csrf: session.csrf,
        email: session.user.email,
        organizationName: org?.name,
        flash: req.method === 'GET' ? session.flash : null,
        path: req.url.split('?')[0].replace(/\/$/, '') || '/',
      },
    };
  }

  page(path: string, area: 'partner' | 'operator', fn: PageFn): void {
    this.app.get(path, { config: { access: 'public', dashboard: area } }, async (req, reply) => {
      const ctx = await this.context(req, area);
      return sendHtml(reply, await fn(req, ctx, {}));
    });
  }

  /**
   * A form POST: on success a 303 to the next page with a notice (or a page, e.g. a secret shown
   * once); on a refused input the form page again with the message and the status of the error.
   */
  action(
    path: string,
    area: 'partner' | 'operator',
    run: (req: FastifyRequest, ctx: Ctx) => Promise<ActionResult>,
    back?: PageFn,
    /**
     * `file`: the form uploads one file, so it alone accepts `multipart/form-data`; its body limit is
     * the file's plus room for the text fields.
     */
    opts: { bodyLimit?: number; file?: FileField } = {},
  ): void {
    this.postPaths.push(path);
    const spec = opts.file;
    const tempDir = uploadTempDir(this.s.config.dataDir);
    const bodyLimit = spec ? spec.maxBytes + FORM_OVERHEAD_BYTES : opts.bodyLimit;
    this.app.post(
      path,
      {
        config: { access: 'public', dashboard: area, dashboardFiles: spec !== undefined },
        ...(bodyLimit ? { bodyLimit } : {}),
        // After the form gate (the session) and before a byte is read; then the parts, as they arrive.
        ...(spec
          ? {
              onRequest: (req: FastifyRequest, reply: FastifyReply) => admitFileForm(req, reply, tempDir),
              preValidation: async (req: FastifyRequest) => {
                if (req.isMultipart()) req.body = await readFileForm(req, spec, tempDir);
              },
            }
          : {}),
      },
      async (req, reply) => {
        const ctx = await this.context(req, area);
        const ticket = uploadTicketOf(req);
        try {
          const result = await (ticket ? ticket.during(() => run(req, ctx)) : run(req, ctx));
          if ('html' in result) return sendHtml(reply, result.html);
          if (result.notice) await this.s.dashboard.setFlash(ctx.session, result.notice);
          return reply.code(303).header('location', result.redirect).send();
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500 || !back) throw err;
          reply.code(err.status);
          return sendHtml(
            reply,
            await back(req, ctx, { error: err.message, values: (req.body ?? {}) as FormBody }),
            err.status,
          );
        }
      },
    );
  }
}

export function sendHtml(reply: FastifyReply, body: string, status?: number): FastifyReply {
  if (status) reply.code(status);
  return reply.type('text/html; charset=utf-8').send(body);
}

/** The page a refused or failed request shows, in the area it was made in. */
export function errorPage(s: DashboardServices, req: FastifyRequest, err: ApiError): string {
  const area = req.url.startsWith('/console') ? 'console' : req.url.startsWith('/dashboard') ? 'dashboard' : 'public';
  const session = req.dashboardSession;
  const titles: Record<number, string> = {
    400: 'The request was not accepted',
    401: 'Sign-in needed',
    403: 'Not allowed',
    404: 'Not found',
    405: 'Not allowed',
    409: 'Conflict',
    413: 'Too large',
    415: 'Not accepted',
    429: 'Too many requests',
  };
  const home = session ? (session.user.role === 'operator' ? '/console' : '/dashboard') : '/dashboard/sign-in';
  return page(
    {
      area: session ? area : 'public',
      env: s.config.env,
      csrf: session?.csrf ?? '',
      email: session?.user.email,
      path: req.url,
    },
    titles[err.status] ?? 'Something went wrong',
    html`<p>${err.message}</p><p><a href="${home}">Back to the start page</a></p>`,
    { error: err.status >= 500 ? `Error reference: ${req.id}` : null },
  );
}

/** The form's token: the hidden `_csrf` field. */
export const formToken = (req: FastifyRequest) => value(req.body, '_csrf') ?? '';

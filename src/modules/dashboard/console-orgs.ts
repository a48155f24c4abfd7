import type { FastifyRequest } from 'fastify';
import { integer, required, text, value } from './forms.ts';
import { badge, field, fmtDate, form, html, statusTone, shortRef, table } from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

const refParam = (req: FastifyRequest) => (req.params as { ref: string }).ref;

/** Operator console: organizations, their users and rendertoken limits, and operator accounts. */
export function consoleOrgPages(r: DashRouter): void {
  organizationListPages(r);
  organizationPages(r);
}

/** The list of organizations, creating one, and the operator accounts. */
function organizationListPages(r: DashRouter): void {
  const { s } = r;
  const o = s.organization;

  const orgsPage = async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const { organizations } = await o.listOrganizations({ limit: 100 });
    const operators = await s.dashboard.listOperators();
    return page(
      ctx.page,
      'Organizations',
      html`${table(
        ['Organization', 'Reference', 'Created'],
        organizations.map(
          (x) =>
            html`<tr><td><a href="/console/organizations/${x.reference}">${x.name}</a></td><td>${shortRef(x.reference)}</td><td>${fmtDate(x.created)}</td></tr>`,
        ),
        { caption: 'Organizations, newest first' },
      )}
<div class="grid"><section class="card" aria-labelledby="new-org"><h2 id="new-org">Create an organization</h2>
${form(
  '/console/organizations',
  ctx.page.csrf,
  html`${field({ label: 'Name', name: 'name', required: true, maxlength: 200, value: opts.values ? value(opts.values, 'name') : '' })}
${field({ label: 'Weekly rendertoken limit', name: 'rendertokenLimit', type: 'number', min: 0, value: opts.values ? value(opts.values, 'rendertokenLimit') : 1000 })}<button type="submit">Create organization</button>`,
  { label: 'Create an organization' },
)}</section>
<section class="card" aria-labelledby="ops"><h2 id="ops">Operators</h2>${table(
        ['E-mail', 'Since'],
        operators.map((u) => html`<tr><td>${u.email}</td><td>${fmtDate(u.created)}</td></tr>`),
        { caption: 'Operator users' },
      )}
${form('/console/operators', ctx.page.csrf, html`${field({ label: 'E-mail', name: 'email', type: 'email', required: true, maxlength: 254 })}${field({ label: 'Initial password', name: 'password', type: 'password', required: true, autocomplete: 'new-password', help: 'At least 10 characters.' })}<button type="submit">Add operator</button>`, { label: 'Add an operator' })}</section></div>`,
      { error: opts.error, notice: opts.notice },
    );
  };
  r.page('/console', 'operator', orgsPage);
  r.action(
    '/console/organizations',
    'operator',
    async (req) => {
      const org = await o.createOrganization({
        name: required(req.body, 'name', 'Name'),
        rendertokenLimit: integer(req.body, 'rendertokenLimit', 'Rendertoken limit', { min: 0, max: 100_000_000 }),
      });
      return { redirect: `/console/organizations/${org.reference}`, notice: `Organization ${org.name} created.` };
    },
    orgsPage,
  );
  r.action(
    '/console/operators',
    'operator',
    async (req) => {
      const u = await s.dashboard.createOperatorUser({
        email: required(req.body, 'email', 'E-mail', 254),
        password: value(req.body, 'password') ?? '',
      });
      return { redirect: '/console', notice: `Operator ${u.email} added.` };
    },
    orgsPage,
  );
}

/** One organization: its users, rendertoken limit, stores and keys. */
function organizationPages(r: DashRouter): void {
  const { s } = r;
  const o = s.organization;
  const orgPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const row = await o.organizationFacts(refParam(req));
    const [users, tokens, stores, keys] = await Promise.all([
      s.dashboard.listUsers(row.id),
      s.rendering.rendertokens(row.id),
      o.listStores(row.id, { limit: 100 }),
      o.listApiKeys(row.id, { limit: 100 }),
    ]);
    return page(
      ctx.page,
      row.name,
      html`<p><a href="/console">All organizations</a></p>
<dl class="facts"><dt>Reference</dt><dd>${shortRef(row.id)}</dd><dt>Stores</dt><dd>${stores.stores.map((st) => `${st.name} (${st.code})`).join(', ') || '—'}</dd>
<dt>Active API keys</dt><dd>${keys.apiKeys.filter((k) => !k.revoked).length}</dd><dt>Rendertokens</dt><dd>${tokens.used} of ${tokens.limit} used this week</dd></dl>
<div class="grid"><section class="card" aria-labelledby="limit"><h2 id="limit">Rendertoken limit</h2>
${form(`/console/organizations/${row.id}/rendertoken-limit`, ctx.page.csrf, html`${field({ label: 'Weekly limit', name: 'limit', type: 'number', min: 0, required: true, value: row.rendertokenLimit })}<button type="submit">Save limit</button>`, { label: 'Rendertoken limit' })}</section>
<section class="card" aria-labelledby="users"><h2 id="users">Users</h2>${table(
        ['E-mail', 'Status', 'Since'],
        users.map(
          (u) =>
            html`<tr><td>${u.email}</td><td>${badge(u.status, statusTone(u.status))}</td><td>${fmtDate(u.created)}</td></tr>`,
        ),
        {
          caption: 'Users',
          empty: 'No users yet. Add one below with a password, or leave the password empty for an invitation link.',
        },
      )}
${form(
  `/console/organizations/${row.id}/users`,
  ctx.page.csrf,
  html`${field({ label: 'E-mail', name: 'email', type: 'email', required: true, maxlength: 254, value: opts.values ? value(opts.values, 'email') : '' })}
${field({ label: 'Initial password', name: 'password', type: 'password', autocomplete: 'new-password', help: 'Leave empty to create an invitation link instead.' })}<button type="submit">Add user</button>`,
  { label: 'Add a user' },
)}</section></div>`,
      { error: opts.error, notice: opts.notice },
    );
  };
  r.page('/console/organizations/:ref', 'operator', orgPage);
  r.action(
    '/console/organizations/:ref/rendertoken-limit',
    'operator',
    async (req) => {
      const limit = integer(req.body, 'limit', 'Weekly limit', { min: 0, max: 100_000_000, required: true })!;
      await o.setRendertokenLimit(refParam(req), limit);
      return { redirect: `/console/organizations/${refParam(req)}`, notice: `Rendertoken limit set to ${limit}.` };
    },
    orgPage,
  );
  r.action(
    '/console/organizations/:ref/users',
    'operator',
    async (req, ctx) => {
      const email = required(req.body, 'email', 'E-mail', 254);
      const password = text(req.body, 'password', 'Password', { max: 200 });
      if (password !== undefined) {
        const u = await s.dashboard.createPartnerUser(refParam(req), { email, password });
        return { redirect: `/console/organizations/${refParam(req)}`, notice: `User ${u.email} created.` };
      }
      const inv = await s.dashboard.invite(refParam(req), email, ctx.session.user.id);
      const link = `${s.config.publicBaseUrl}/dashboard/invitation?token=${inv.token}`;
      return {
        html: page(
          ctx.page,
          'Invitation created',
          html`<div class="card"><p>Send this link to <strong>${inv.email}</strong>; it is shown only now and works once, for 7 days.</p>
<div class="secret"><code id="invite-link">${link}</code><button type="button" class="btn secondary" data-copy="invite-link">Copy link</button></div><p><a href="/console/organizations/${refParam(req)}">Back</a></p></div>`,
        ),
      };
    },
    orgPage,
  );
}

import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../platform/errors.ts';
import { type FormBody, required, text, value } from './forms.ts';
import { type Html, badge, field, fmtDate, form, html, select, statusTone, shortRef, table } from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, DashboardServices, PageOptions } from './router.ts';

const ALL = { limit: 100 };
const ADDRESS: Array<[string, string, number]> = [
  ['company', 'Company', 100],
  ['firstname', 'First name', 100],
  ['lastname', 'Last name', 100],
  ['streetname', 'Street', 100],
  ['housenumber', 'House number', 20],
  ['zipcode', 'Postcode', 20],
  ['city', 'City', 100],
  ['countryCode', 'Country code (2 letters)', 2],
  ['email', 'E-mail', 254],
  ['phonenumber', 'Phone number', 30],
];

export function addressFieldset(
  legend: string,
  prefix: string,
  current: Record<string, string> | null | undefined,
): Html {
  return html`<fieldset><legend>${legend}</legend><div class="grid">${ADDRESS.map(([k, label, max]) =>
    field({
      label,
      name: `${prefix}.${k}`,
      value: current?.[k] ?? '',
      maxlength: max,
      type: k === 'email' ? 'email' : 'text',
      autocomplete: 'off',
    }),
  )}</div></fieldset>`;
}

/** The address of a form; null when every field is empty. */
export function addressFrom(body: unknown, prefix: string, label: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [k, name, max] of ADDRESS) {
    const v = text(body, `${prefix}.${k}`, `${label}: ${name}`, { max });
    if (v !== undefined) out[k] = k === 'countryCode' ? v.toUpperCase() : v;
  }
  if (Object.keys(out).length === 0) return null;
  if (out.countryCode && !/^[A-Z]{2}$/.test(out.countryCode))
    throw badRequest(`${label}: the country code must be two letters (ISO 3166-1), e.g. NL`);
  return out;
}

/** Values typed before an error win over the stored ones, so nothing typed is lost. */
export const typed = (opts: PageOptions, name: string, stored: string | null | undefined) =>
  opts.values ? (value(opts.values, name) ?? '') : (stored ?? '');
export const typedAddress = (opts: PageOptions, prefix: string, stored: Record<string, string> | null | undefined) => {
  if (!opts.values) return stored;
  return Object.fromEntries(ADDRESS.map(([k]) => [k, value(opts.values, `${prefix}.${k}`) ?? '']));
};

function storeInput(body: unknown) {
  const integration = required(body, 'integration', 'Integration type', 50);
  if (!/^[a-z0-9_-]+$/i.test(integration))
    throw badRequest('Integration type: letters, digits, - and _ only (e.g. api, shopify)');
  return {
    name: required(body, 'name', 'Store name'),
    integration,
    defaultBrandReference: text(body, 'defaultBrandReference', 'Default brand') ?? null,
    callbackUrl: text(body, 'callbackUrl', 'Callback URL', { max: 2000 }) ?? null,
    combinedAddress: addressFrom(body, 'combinedAddress', 'Combined address'),
  };
}

/** A page of the organization's structure, with the notice or error of the last form. */
export const show = (_req: FastifyRequest, ctx: Ctx, title: string, body: Html, opts: PageOptions) =>
  page(ctx.page, title, body, { error: opts.error, notice: opts.notice });

/** The store form's fields; a new store also chooses its code and account, which cannot change later. */
async function storeForm(
  o: DashboardServices['organization'],
  ctx: Ctx,
  opts: PageOptions,
  st?: Awaited<ReturnType<DashboardServices['organization']['store']>>,
) {
  const [{ accounts }, { brands }] = await Promise.all([o.listAccounts(ctx.orgId, ALL), o.listBrands(ctx.orgId, ALL)]);
  const brandOptions = [{ value: '', label: '(none)' }, ...brands.map((b) => ({ value: b.reference, label: b.name }))];
  return html`${field({ label: 'Store name', name: 'name', required: true, maxlength: 200, value: typed(opts, 'name', st?.name) })}
${
  st
    ? html`<dl class="facts"><dt>Store code</dt><dd><code>${st.code}</code></dd><dt>Account</dt><dd>${accounts.find((a) => a.reference === st.accountReference)?.name ?? st.accountReference}</dd></dl>`
    : html`${field({ label: 'Store code', name: 'code', required: true, pattern: '[A-Za-z0-9]{2,20}', maxlength: 20, help: '2–20 letters or digits; used in V1-style order references; cannot change later.', value: typed(opts, 'code', '') })}
${select({ label: 'Account', name: 'accountReference', required: true, value: typed(opts, 'accountReference', accounts[0]?.reference), options: accounts.map((a) => ({ value: a.reference, label: a.name })) })}`
}
${field({ label: 'Integration type', name: 'integration', required: true, maxlength: 50, value: typed(opts, 'integration', st?.integration ?? 'api'), help: 'api: orders come through the API. Another value (e.g. shopify) means an upstream platform owns the orders.' })}
${select({ label: 'Default brand', name: 'defaultBrandReference', value: typed(opts, 'defaultBrandReference', st?.defaultBrandReference), options: brandOptions, help: 'Orders without a brand use this one.' })}
${field({ label: 'Callback URL', name: 'callbackUrl', type: 'url', maxlength: 2000, value: typed(opts, 'callbackUrl', st?.callbackUrl), help: 'Optional: called with GET when an order of this store changes. Empty disables it.' })}
${addressFieldset('Combined address (where combined orders ship)', 'combinedAddress', typedAddress(opts, 'combinedAddress', st?.combinedAddress as Record<string, string> | null))}`;
}

/** The stores, adding one, and one store's page to edit it. */
export function partnerStorePages(r: DashRouter): void {
  const o = r.s.organization;
  const storesPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const [{ stores }, { accounts }, { brands }] = await Promise.all([
      o.listStores(ctx.orgId, ALL),
      o.listAccounts(ctx.orgId, ALL),
      o.listBrands(ctx.orgId, ALL),
    ]);
    const name = (list: Array<{ reference: string; name: string }>, ref: string | null) =>
      list.find((x) => x.reference === ref)?.name ?? '—';
    return show(
      req,
      ctx,
      'Stores',
      html`${table(
        ['Store', 'Code', 'Integration', 'Account', 'Default brand', 'Callback URL'],
        stores.map(
          (st) => html`<tr>
<td><a href="/dashboard/stores/${st.reference}">${st.name}</a></td><td><code>${st.code}</code></td><td>${st.integration}</td><td>${name(accounts, st.accountReference)}</td><td>${name(brands, st.defaultBrandReference)}</td><td class="ref">${st.callbackUrl ?? '—'}</td></tr>`,
        ),
        { caption: 'Stores', empty: 'No stores yet. Add one below; every order belongs to a store.' },
      )}
<section class="card" aria-labelledby="new-store"><h2 id="new-store">Add a store</h2>
${accounts.length ? form('/dashboard/stores', ctx.page.csrf, html`${await storeForm(o, ctx, opts)}<button type="submit">Create store</button>`, { label: 'Add a store' }) : html`<p>A store needs an account; ask the service to open one.</p>`}</section>`,
      opts,
    );
  };
  r.page('/dashboard/stores', 'partner', storesPage);
  r.action(
    '/dashboard/stores',
    'partner',
    async (req, ctx) => {
      const code = required(req.body, 'code', 'Store code', 20);
      if (!/^[A-Za-z0-9]{2,20}$/.test(code)) throw badRequest('Store code: 2–20 letters or digits');
      const st = await o.createStore(ctx.orgId, {
        ...storeInput(req.body),
        code,
        accountReference: required(req.body, 'accountReference', 'Account'),
      });
      return { redirect: `/dashboard/stores/${st.reference}`, notice: `Store ${st.name} created.` };
    },
    storesPage,
  );

  const storePage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const st = await o.store(ctx.orgId, (req.params as { ref: string }).ref);
    return show(
      req,
      ctx,
      `Store ${st.name}`,
      html`<p><a href="/dashboard/stores">All stores</a></p><p>Reference ${shortRef(st.reference)}</p>
<section class="card">${form(`/dashboard/stores/${st.reference}`, ctx.page.csrf, html`${await storeForm(o, ctx, opts, st)}<button type="submit">Save store</button>`, { label: 'Edit store' })}</section>`,
      opts,
    );
  };
  r.page('/dashboard/stores/:ref', 'partner', storePage);
  r.action(
    '/dashboard/stores/:ref',
    'partner',
    async (req, ctx) => {
      const st = await o.updateStore(ctx.orgId, (req.params as { ref: string }).ref, storeInput(req.body));
      return { redirect: `/dashboard/stores/${st.reference}`, notice: `Store ${st.name} saved.` };
    },
    storePage,
  );
}

/** The organization's users and invitations, and inviting a colleague (the link shown once). */
export function partnerUserPages(r: DashRouter): void {
  const { s } = r;
  const usersPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const [users, invitations] = await Promise.all([
      s.dashboard.listUsers(ctx.orgId),
      s.dashboard.invitations(ctx.orgId),
    ]);
    return show(
      req,
      ctx,
      'Users',
      html`${table(
        ['E-mail', 'Status', 'Since'],
        users.map(
          (u) =>
            html`<tr><td>${u.email}</td><td>${badge(u.status, statusTone(u.status))}</td><td>${fmtDate(u.created)}</td></tr>`,
        ),
        { caption: 'Users of the organization' },
      )}
${table(
  ['E-mail', 'Status', 'Sent', 'Expires'],
  invitations.map(
    (i) =>
      html`<tr><td>${i.email}</td><td>${badge(i.status, statusTone(i.status))}</td><td>${fmtDate(i.created)}</td><td>${fmtDate(i.expires)}</td></tr>`,
  ),
  { caption: 'Invitations', empty: 'No invitations sent. Invite a colleague below.' },
)}
<section class="card" aria-labelledby="invite"><h2 id="invite">Invite a colleague</h2>
${form('/dashboard/users/invite', ctx.page.csrf, html`${field({ label: 'E-mail', name: 'email', type: 'email', required: true, maxlength: 254, value: typed(opts, 'email', '') })}<button type="submit">Create invitation link</button>`, { label: 'Invite a colleague' })}
<p class="help">The link is shown once and works for 7 days; send it to your colleague, who sets a password with it.</p></section>`,
      opts,
    );
  };
  r.page('/dashboard/users', 'partner', usersPage);
  r.action(
    '/dashboard/users/invite',
    'partner',
    async (req, ctx) => {
      const inv = await s.dashboard.invite(ctx.orgId, required(req.body, 'email', 'E-mail', 254), ctx.session.user.id, {
        discreet: true,
      });
      const link = `${s.config.publicBaseUrl}/dashboard/invitation?token=${inv.token}`;
      return {
        html: page(
          ctx.page,
          'Invitation created',
          html`<div class="card"><p>Send this link to <strong>${inv.email}</strong>. It is shown only now and works once, for 7 days.</p>
<div class="secret"><code id="invite-link">${link}</code><button type="button" class="btn secondary" data-copy="invite-link">Copy link</button></div><p><a href="/dashboard/users">Back to users</a></p></div>`,
        ),
      };
    },
    usersPage,
  );
}

export type { FormBody };

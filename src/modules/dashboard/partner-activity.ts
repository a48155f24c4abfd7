import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest } from '../../platform/errors.ts';
import { type PolicyName, type Principal, policiesFor } from '../../platform/http/auth.ts';
import { claimView, decisionForm, decisionFrom, lineContexts } from './claim-views.ts';
import {
  type Html,
  badge,
  buttonForm,
  euros,
  field,
  fmtDate,
  html,
  plural,
  select,
  statusTone,
  shortRef,
  table,
} from './html.ts';
import { page } from './layout.ts';
import { orderSections } from './order-page.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

const ALL = { limit: 100 };
const STATUSES = ['pending', 'preorder', 'in_production', 'shipped', 'canceled'];
const BUCKETS: PolicyName[] = ['default', 'uploads', 'downloads'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const refParam = (req: FastifyRequest) => (req.params as { ref: string }).ref;
const q = (req: FastifyRequest) => (req.query ?? {}) as Record<string, string | undefined>;

/** The partner's orders, claims, renders and usage. */
export function partnerActivityPages(r: DashRouter): void {
  orderListPage(r);
  orderPages(r);
  claimPages(r);
  renderPages(r);
  usagePage(r);
}

/** The orders, filtered by store, status and creation date, newest first and a page at a time. */
function orderListPage(r: DashRouter): void {
  const { s } = r;
  r.page('/dashboard/orders', 'partner', async (req, ctx) => {
    const query = q(req);
    const { stores } = await s.organization.listStores(ctx.orgId, ALL);
    const filter: Parameters<typeof s.orders.list>[1] = { limit: 50 };
    const problems: string[] = [];
    if (query.store && stores.some((st) => st.reference === query.store)) filter.storeReference = query.store;
    if (query.status && STATUSES.includes(query.status)) filter.status = query.status as never;
    for (const [key, target] of [
      ['from', 'createdAfter'],
      ['to', 'createdBefore'],
    ] as const) {
      const v = query[key];
      if (!v) continue;
      if (!DATE.test(v) || Number.isNaN(Date.parse(v)))
        problems.push(`${key === 'from' ? 'From' : 'To'} must be a date`);
      else
        filter[target] =
          key === 'from' ? `${v}T00:00:00Z` : new Date(Date.parse(`${v}T00:00:00Z`) + 86400_000).toISOString();
    }
    if (query.cursor) filter.cursor = query.cursor.slice(0, 500);
    const list = async () => {
      try {
        return await s.orders.list(ctx.orgId, filter);
      } catch (err) {
        // A cursor from an old or edited link: show the first page rather than an error.
        if (!(err instanceof ApiError) || err.status !== 400 || !filter.cursor) throw err;
        filter.cursor = undefined;
        problems.push('That page of results is no longer available; showing the newest orders');
        return s.orders.list(ctx.orgId, filter);
      }
    };
    const { orders, nextCursor } = await list();
    const storeName = new Map(stores.map((st) => [st.reference, st.name]));
    const keep = new URLSearchParams(
      Object.entries({ store: filter.storeReference, status: filter.status, from: query.from, to: query.to }).filter(
        ([, v]) => v,
      ) as Array<[string, string]>,
    );
    return page(
      ctx.page,
      'Orders',
      html`<form method="get" class="filters card" aria-label="Filter orders">
${select({ label: 'Store', name: 'store', value: filter.storeReference ?? '', options: [{ value: '', label: 'all stores' }, ...stores.map((st) => ({ value: st.reference, label: st.name }))] })}
${select({ label: 'Status', name: 'status', value: filter.status ?? '', options: [{ value: '', label: 'any status' }, ...STATUSES.map((x) => ({ value: x, label: x.replace('_', ' ') }))] })}
<div class="field"><label for="f-from">Created from</label><input id="f-from" type="date" name="from" value="${query.from ?? ''}"></div>
<div class="field"><label for="f-to">Created until</label><input id="f-to" type="date" name="to" value="${query.to ?? ''}"></div>
<button type="submit" class="btn secondary">Filter</button></form>
${table(
  ['Order', 'Store', 'Status', 'Lines', 'Total', 'Created'],
  orders.map(
    (
      o,
    ) => html`<tr><td><a href="/dashboard/orders/${o.reference}">${o.legacyOrderCode}</a><br><span class="help">${o.upstreamOrder ? html`Shopify ${o.upstreamOrder.name}` : o.customIdentifier ? html`<span class="ref">${o.customIdentifier}</span>` : shortRef(o.reference)}</span></td>
<td>${storeName.get(o.storeReference) ?? o.storeReference}</td><td>${badge(o.status.code, statusTone(o.status.code))}</td><td>${o.orderlines.length}<br><span class="help">${plural(
      o.orderlines.reduce((n, l) => n + l.quantity, 0),
      'item',
    )}</span></td><td>${euros(o.prices.total)}</td><td>${fmtDate(o.created)}</td></tr>`,
  ),
  {
    caption: 'Orders, newest first',
    empty: 'No orders match. Clear a filter, or place an order with POST /v2/orders and it shows here.',
  },
)}
${nextCursor ? html`<p><a href="/dashboard/orders?${keep.toString()}${keep.size ? '&' : ''}cursor=${encodeURIComponent(nextCursor)}">Older orders</a></p>` : ''}`,
      { error: problems.join('; ') || null },
    );
  });
}

/** One order's page, with the test environment's buttons that move it on. */
function orderPages(r: DashRouter): void {
  const { s } = r;
  const testEnv = s.config.env === 'test';
  const orderPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const o = await s.orders.get(ctx.orgId, refParam(req));
    const shipment = o.shipmentReference ? await s.shipments.find(ctx.orgId, o.shipmentReference) : null;
    const store = await s.organization.findStore(ctx.orgId, o.storeReference);
    const helpers: Html[] = [];
    if (testEnv && (o.status.code === 'pending' || o.status.code === 'preorder'))
      helpers.push(
        buttonForm(`/dashboard/orders/${o.reference}/start-production`, ctx.page.csrf, 'Start production (test)'),
      );
    if (testEnv && o.status.code === 'in_production')
      helpers.push(buttonForm(`/dashboard/orders/${o.reference}/ship`, ctx.page.csrf, 'Ship (test)'));
    return page(
      ctx.page,
      `Order ${o.legacyOrderCode}`,
      html`<p><a href="/dashboard/orders">All orders</a></p>
<dl class="facts"><dt>Reference</dt><dd>${shortRef(o.reference)}</dd><dt>Status</dt><dd>${badge(o.status.code, statusTone(o.status.code))} since ${fmtDate(o.status.modified)}</dd>
<dt>Store</dt><dd>${store?.name ?? o.storeReference}</dd><dt>Shipping</dt><dd>${o.shippingKind}${o.shippingLevel ? `, ${o.shippingLevel}` : ''}</dd>
${o.customIdentifier ? html`<dt>Your identifier</dt><dd>${o.customIdentifier}</dd>` : ''}${o.upstreamOrder ? html`<dt>Shopify order</dt><dd>${o.upstreamOrder.name} <span class="help ref">${o.upstreamOrder.id}</span></dd>` : ''}${o.viaStoreCode ? html`<dt>Created through</dt><dd>integrator <code>${o.viaStoreCode}</code></dd>` : ''}${o.replacementForClaimReference ? html`<dt>Replacement for</dt><dd><a href="/dashboard/claims/${o.replacementForClaimReference}">${o.replacementForClaimReference}</a></dd>` : ''}
<dt>Prices</dt><dd>products ${euros(o.prices.products)}, shipping ${euros(o.prices.shipping)}, total <strong>${euros(o.prices.total)}</strong></dd><dt>Created</dt><dd>${fmtDate(o.created)}</dd></dl>
${helpers.length ? html`<section class="card" aria-label="Test helpers"><h2>Test helpers</h2><p>${helpers}</p></section>` : ''}
${await orderSections(s, ctx.orgId, o, shipment)}`,
      { error: opts.error, notice: opts.notice },
    );
  };
  r.page('/dashboard/orders/:ref', 'partner', orderPage);
  if (testEnv) {
    r.action(
      '/dashboard/orders/:ref/start-production',
      'partner',
      async (req, ctx) => {
        await s.orders.startProduction(ctx.orgId, refParam(req));
        return { redirect: `/dashboard/orders/${refParam(req)}`, notice: 'The order is in production (test helper).' };
      },
      orderPage,
    );
    r.action(
      '/dashboard/orders/:ref/ship',
      'partner',
      async (req, ctx) => {
        const sh = await s.shipments.ship(ctx.orgId, { orderReferences: [refParam(req)] }, 'order');
        return { redirect: `/dashboard/orders/${refParam(req)}`, notice: `Shipped as ${sh.reference} (test helper).` };
      },
      orderPage,
    );
  }
}

/** The claims, one claim's page, and deciding it in the test environment. */
function claimPages(r: DashRouter): void {
  const { s } = r;
  const testEnv = s.config.env === 'test';
  r.page('/dashboard/claims', 'partner', async (_req, ctx) => {
    const { claims } = await s.claims.list(ctx.orgId, { limit: 100 });
    return page(
      ctx.page,
      'Claims',
      html`<p>Pending claims and claims closed in the last 14 days.</p>${table(
        ['Claim', 'Order', 'Categories', 'Status', 'Filed', 'Decided'],
        claims.map(
          (c) => html`<tr>
<td>${shortRef(c.reference, { href: `/dashboard/claims/${c.reference}` })}</td><td>${shortRef(c.orderReference, { href: `/dashboard/orders/${c.orderReference}` })}</td><td>${c.claimcategories.map((x) => x.name).join(', ')}</td>
<td>${badge(c.status, statusTone(c.status))}</td><td>${fmtDate(c.created)}</td><td>${fmtDate(c.decided)}</td></tr>`,
        ),
        {
          caption: 'Claims',
          empty: 'No claims. File one with POST /v2/claim-item-issues when a shipped item is damaged or wrong.',
        },
      )}`,
    );
  });
  const claimPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const c = await s.claims.get(ctx.orgId, refParam(req));
    return page(
      ctx.page,
      'Claim',
      html`<p><a href="/dashboard/claims">All claims</a></p>${claimView(
        c,
        (ref) => `/dashboard/orders/${ref}`,
        await lineContexts(s, ctx.orgId, c, {
          image: (x) => `/dashboard/images/${x}/thumbnail`,
          render: (x) => `/dashboard/renders/${x}/thumbnail`,
        }),
      )}
${testEnv && c.status === 'pending' ? html`<section class="card" aria-labelledby="decide"><h2 id="decide">Decide (test helper)</h2><p>In production the service’s support team decides.</p>${decisionForm(c, `/dashboard/claims/${c.reference}/decide`, ctx.page.csrf)}</section>` : ''}`,
      { error: opts.error, notice: opts.notice },
    );
  };
  r.page('/dashboard/claims/:ref', 'partner', claimPage);
  if (testEnv) {
    r.action(
      '/dashboard/claims/:ref/decide',
      'partner',
      async (req, ctx) => {
        const c = await s.claims.get(ctx.orgId, refParam(req));
        await s.claims.decide(ctx.orgId, c.reference, decisionFrom(req.body, c));
        return { redirect: `/dashboard/claims/${c.reference}`, notice: 'Claim decided (test helper).' };
      },
      claimPage,
    );
  }
}

/** The renders with the week's rendertokens, finding one by reference, and the render files. */
function renderPages(r: DashRouter): void {
  const { s } = r;
  r.page('/dashboard/renders', 'partner', async (req, ctx) => {
    const wanted = q(req).reference?.trim();
    let found: Html = html``;
    let error: string | null = null;
    if (wanted) {
      const one = await s.rendering.findRender(ctx.orgId, wanted);
      if (!one) error = `No render ${wanted} in this organization`;
      else
        found = html`<section class="card"><h2>Render</h2><p>${shortRef(one.reference)}</p><p>${badge(one.status, statusTone(one.status === 'completed' ? 'succeeded' : one.status))} ${one.failureReason ?? ''}</p>${one.status === 'completed' ? html`<a href="/dashboard/renders/${one.reference}/media"><img class="render-full" src="/dashboard/renders/${one.reference}/media" alt="Render ${one.reference}"></a><p><a href="/dashboard/renders/${one.reference}/media">Open at full size</a></p>` : ''}</section>`;
    }
    const [{ renders }, tokens] = await Promise.all([
      s.rendering.listRenders(ctx.orgId, { limit: 60 }),
      s.rendering.rendertokens(ctx.orgId),
    ]);
    return page(
      ctx.page,
      'Renders',
      html`<p>Rendertokens this week: <strong>${tokens.used}</strong> of ${tokens.limit} used, ${tokens.remaining} left; the limit resets ${fmtDate(tokens.resets)}.</p>
<form method="get" class="filters card" aria-label="Find a render">${field({ label: 'Render reference', name: 'reference', value: wanted ?? '', maxlength: 40 })}<button type="submit" class="btn secondary">Show</button></form>${found}
<h2>Latest renders</h2>${renders.length ? html`<div class="thumbs">${renders.map((x) => html`<figure>${x.status === 'completed' ? html`<img src="/dashboard/renders/${x.reference}/thumbnail" alt="Render ${x.reference}" loading="lazy">` : html`<p>${badge(x.status, statusTone(x.status === 'failed' ? 'failed' : x.status))} ${x.failureReason ?? ''}</p>`}<figcaption>${shortRef(x.reference, { href: `/dashboard/renders?reference=${x.reference}` })}<br>${fmtDate(x.completed ?? x.created)}</figcaption></figure>`)}</div>` : html`<p class="empty">No renders yet. Request one with POST /v2/renders; finished renders show here with a thumbnail.</p>`}`,
      { error },
    );
  });
  // The render itself (as `GET /v2/renders/{ref}/media` gives it) and its thumbnail, for the
  // signed-in partner: another organization's render is a 404 like an unknown one.
  for (const which of ['thumbnail', 'media'] as const)
    r.app.get(
      `/dashboard/renders/:ref/${which}`,
      { config: { access: 'public', dashboard: 'partner' } },
      async (req, reply) => {
        const f = await s.rendering.renderFile(req.dashboardSession!.user.organization_id!, refParam(req), which);
        if (!f.ready) throw badRequest('The render is not finished yet', 'render_pending');
        return reply
          .type(f.mimeType)
          .header('cache-control', 'private, max-age=3600')
          .header('content-length', f.size)
          .send(f.stream);
      },
    );
}

/** Rendertokens and the rate-limit buckets, with what is used of each. */
function usagePage(r: DashRouter): void {
  const { s } = r;
  r.page('/dashboard/usage', 'partner', async (_req, ctx) => {
    const org = await s.organization.organizationFacts(ctx.orgId);
    const principal = { organizationId: ctx.orgId, rateLimits: org.rateLimits } as Principal;
    const policies = BUCKETS.map((b) => policiesFor(s.config, principal, b).find((p) => p.name === b)!);
    const states = await s.rateLimits.peek(ctx.orgId, policies);
    const tokens = await s.rendering.rendertokens(ctx.orgId);
    const meter = (used: number, limit: number, label: string) =>
      html`<div class="meter" role="meter" aria-label="${label}" aria-valuemin="0" aria-valuemax="${limit}" aria-valuenow="${used}"><span style="width:${limit ? Math.min(100, Math.round((used / limit) * 100)) : 0}%"></span></div>`;
    return page(
      ctx.page,
      'Usage',
      html`<section class="card" aria-labelledby="tokens"><h2 id="tokens">Rendertokens</h2><p>${tokens.used} of ${tokens.limit} used this week; ${tokens.remaining} left. Resets ${fmtDate(tokens.resets)} (Mondays 00:00 Amsterdam time).</p>${meter(tokens.used, tokens.limit, 'Rendertokens used')}</section>
<h2>Rate limits</h2><p>All API keys of the organization share these buckets; they refill continuously.</p>
${table(
  ['Bucket', 'Quota', 'Window', 'Remaining now', 'Used'],
  states.map(
    (
      st,
    ) => html`<tr><td>${st.policy.name}</td><td>${st.policy.quota}</td><td>${st.policy.windowSeconds} s</td><td>${st.remaining}${st.resetSeconds ? html` (next in ${st.resetSeconds} s)` : ''}</td>
<td>${meter(st.policy.quota - st.remaining, st.policy.quota, `${st.policy.name} bucket used`)}</td></tr>`,
  ),
  { caption: 'Rate-limit buckets' },
)}`,
    );
  });
}

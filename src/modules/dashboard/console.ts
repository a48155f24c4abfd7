import type { FastifyRequest } from 'fastify';
import { badRequest, notFound, mustFind } from '../../platform/errors.ts';
import { jobsRepo } from '../../platform/jobs/queue.ts';
import { STATUSES as PRODUCT_STATUSES } from '../catalog/schemas.ts';
import { claimView, decisionForm, decisionFrom, lineContexts } from './claim-views.ts';
import { integer, text } from './forms.ts';
import {
  type Html,
  badge,
  buttonForm,
  field,
  fmtDate,
  form,
  html,
  select,
  statusTone,
  shortRef,
  table,
} from './html.ts';
import { page } from './layout.ts';
import { productPictureSvg, productThumb, sendPicture } from './product-picture.ts';
import { sendMedia } from '../catalog/routes.ts';
import type { Ctx, DashRouter, DashboardServices, PageFn, PageOptions } from './router.ts';

/** The fields of the operator's product view this page uses. */
interface Product {
  reference: string;
  name: string;
  status: string;
  availableQuantity: number;
}

const refParam = (req: FastifyRequest) => (req.params as { ref: string }).ref;
const allOrgs = async (s: DashboardServices) => (await s.organization.listOrganizations({ limit: 100 })).organizations;

/** Operator console: catalog lifecycle and stock, fulfilment, claims review and failed jobs (fulfilment is the Production page). */
export function consolePages(r: DashRouter): void {
  catalogPages(r);
  // Bookmarks of a Fulfilment page land on the Production page, which shows fulfilment.
  r.app.get('/console/fulfilment', { config: { access: 'public' } }, async (_req, reply) =>
    reply.code(301).header('location', '/console/production').send(),
  );

  claimsReviewPages(r);
  jobsPages(r);
}

/** The catalog page: products searched by name, SKU, brand, device, case type and stage. */
function catalogView(s: DashboardServices): PageFn {
  return async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const query = (req.query ?? {}) as Record<string, string | undefined>;
    const facets = await s.catalog.catalogFacets();
    const pick = (v: string | undefined, allowed: string[]) => (v && allowed.includes(v) ? v : undefined);
    const filter = {
      q: query.q?.trim().slice(0, 100) || undefined,
      brand: pick(query.brand, facets.brands),
      device: pick(
        query.device,
        facets.devices.map((x) => x.key),
      ),
      caseType: pick(query.caseType, facets.caseTypes),
      stage: pick(query.stage, [...PRODUCT_STATUSES]),
    };
    const offset = /^\d{1,6}$/.test(query.offset ?? '') ? Number(query.offset) : 0;
    const found = await s.catalog.searchCatalog({ ...filter, limit: 50, offset });
    const more = found.length > 50;
    const products = found.slice(0, 50);
    const keep = new URLSearchParams(Object.entries(filter).filter(([, v]) => v) as Array<[string, string]>);
    const any = (label: string) => ({ value: '', label });
    return page(
      ctx.page,
      'Catalog',
      html`<p>Products move forward only: ${PRODUCT_STATUSES.join(' → ')}. Stock is the logical quantity of the product’s warehouse item.</p>
<form method="get" class="filters card" aria-label="Search the catalog">
${field({ label: 'Search', name: 'q', type: 'search', value: filter.q ?? '', maxlength: 100, help: 'name, SKU or reference' })}
${select({ label: 'Brand', name: 'brand', value: filter.brand ?? '', options: [any('any brand'), ...facets.brands.map((x) => ({ value: x, label: x }))] })}
${select({ label: 'Device', name: 'device', value: filter.device ?? '', options: [any('any device'), ...facets.devices.map((x) => ({ value: x.key, label: x.label }))] })}
${select({ label: 'Case type', name: 'caseType', value: filter.caseType ?? '', options: [any('any case type'), ...facets.caseTypes.map((x) => ({ value: x, label: x }))] })}
${select({ label: 'Stage', name: 'stage', value: filter.stage ?? '', options: [any('any stage'), ...PRODUCT_STATUSES.map((x) => ({ value: x, label: x }))] })}
<button type="submit" class="btn secondary">Search</button></form>
${table(
  ['Picture', 'Product', 'Status', 'Available', 'Change'],
  products.map(
    (
      p,
    ) => html`<tr><td>${productThumb(`/console/catalog/${p.reference}`, { picture: p.picture, drawing: p.device !== null }, 64, html`<span class="help">no picture</span>`)}</td>
<td><a href="/console/catalog/${p.reference}">${p.name}</a><br><span class="help">${[p.device, p.caseType].filter(Boolean).join(' · ')}</span><br><span class="help">${shortRef(p.reference)} · ${p.legacyItemSKU}</span>${p.privateOrganizationReference ? html`<br><span class="help">private to ${p.privateOrganizationReference}</span>` : ''}</td>
<td>${badge(p.status, statusTone(p.status))}</td><td>${p.availableQuantity}</td>
<td>${form(
      `/console/catalog/${p.reference}`,
      ctx.page.csrf,
      html`<div class="filters">${select({ label: 'Stage', name: 'status', value: p.status, options: PRODUCT_STATUSES.slice(PRODUCT_STATUSES.indexOf(p.status as never)).map((x) => ({ value: x, label: x })) })}
${field({ label: 'Stock', name: 'logicalQuantity', type: 'number', min: 0, value: p.availableQuantity })}<button type="submit" class="btn secondary">Save</button></div>`,
      { label: `Change ${p.name}` },
    )}</td></tr>`,
  ),
  { caption: 'Products', empty: 'No product matches. Clear a filter or search for part of a name or SKU.' },
)}
${more ? html`<p><a href="/console/catalog?${keep.toString()}${keep.size ? '&' : ''}offset=${offset + 50}">More products</a></p>` : ''}`,
      { error: opts.error, notice: opts.notice },
    );
  };
}

/** The catalog: its page, the product pictures it shows, and changing a product's stage and stock. */
function catalogPages(r: DashRouter): void {
  const { s } = r;
  const catalogPage = catalogView(s);
  r.app.get(
    '/console/catalog/:ref/media/:filename',
    { config: { access: 'public', dashboard: 'operator' } },
    async (req, reply) => {
      const { ref, filename } = req.params as { ref: string; filename: string };
      const media = mustFind(await s.catalog.anyMediaFile(ref, filename), 'Media file');
      return sendMedia(req, reply, s.blobs, media);
    },
  );
  r.app.get(
    '/console/catalog/:ref/picture.svg',
    { config: { access: 'public', dashboard: 'operator' } },
    async (req, reply) => {
      const shape = mustFind(await s.catalog.productDrawing(refParam(req)), 'Product drawing');
      return sendPicture(reply, productPictureSvg(shape));
    },
  );
  r.page('/console/catalog', 'operator', catalogPage);
  r.action(
    '/console/catalog/:ref',
    'operator',
    async (req) => {
      const current = (await s.catalog.operatorProduct(refParam(req))) as unknown as Product;
      const status = text(req.body, 'status', 'Stage', { max: 20 });
      if (status !== undefined && !(PRODUCT_STATUSES as readonly string[]).includes(status))
        throw badRequest(`Stage must be one of ${PRODUCT_STATUSES.join(', ')}`);
      const stock = integer(req.body, 'logicalQuantity', 'Stock', { min: 0, max: 10_000_000 });
      const change: Parameters<typeof s.catalog.changeProduct>[1] = {};
      if (status !== undefined && status !== current.status) change.status = status as never;
      if (stock !== undefined && stock !== current.availableQuantity) change.stock = { logicalQuantity: stock };
      if (Object.keys(change).length === 0)
        return { redirect: '/console/catalog', notice: `Nothing changed for ${current.name}.` };
      const p = (await s.catalog.changeProduct(current.reference, change)) as unknown as Product;
      return { redirect: '/console/catalog', notice: `${p.name}: ${p.status}, ${p.availableQuantity} available.` };
    },
    catalogPage,
  );
}

/** Claims of every organization, one claim's page and the operator's decision on it. */
function claimsReviewPages(r: DashRouter): void {
  const { s } = r;
  /** Claims are looked up within their organization, which the path names, so scoping stays explicit. */
  const claimsPage = async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const rows: Html[] = [];
    for (const org of await allOrgs(s)) {
      const { claims } = await s.claims.list(org.reference, { limit: 100 });
      for (const c of claims) {
        rows.push(
          html`<tr><td>${shortRef(c.reference, { href: `/console/organizations/${org.reference}/claims/${c.reference}` })}</td><td>${org.name}</td><td>${c.claimcategories.map((x) => x.name).join(', ')}</td><td>${badge(c.status, statusTone(c.status))}</td><td>${fmtDate(c.created)}</td></tr>`,
        );
      }
    }
    return page(
      ctx.page,
      'Claims review',
      html`${table(['Claim', 'Organization', 'Categories', 'Status', 'Filed'], rows, { caption: 'Pending and recently closed claims', empty: 'No claims to review. Claims partners file appear here, pending ones first.' })}`,
      { error: opts.error, notice: opts.notice },
    );
  };
  r.page('/console/claims', 'operator', claimsPage);
  const claimPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const { org, ref } = req.params as { org: string; ref: string };
    const organization = await s.organization.organization(org);
    const c = await s.claims.get(organization.reference, ref);
    return page(
      ctx.page,
      `Claim of ${organization.name}`,
      html`<p><a href="/console/claims">All claims</a></p>${claimView(
        c,
        (o) => `/console/production#${o}`,
        await lineContexts(s, organization.reference, c, {
          image: (x) => `/console/organizations/${organization.reference}/images/${x}/thumbnail`,
          render: (x) => `/console/organizations/${organization.reference}/renders/${x}/thumbnail`,
        }),
      )}
${c.status === 'pending' ? html`<section class="card" aria-labelledby="decide"><h2 id="decide">Decision</h2><p>Replaced quantities become a replacement order to where the shipment went.</p>${decisionForm(c, `/console/organizations/${organization.reference}/claims/${c.reference}/decide`, ctx.page.csrf)}</section>` : ''}`,
      { error: opts.error, notice: opts.notice },
    );
  };
  r.page('/console/organizations/:org/claims/:ref', 'operator', claimPage);
  r.action(
    '/console/organizations/:org/claims/:ref/decide',
    'operator',
    async (req) => {
      const { org, ref } = req.params as { org: string; ref: string };
      const c = await s.claims.get((await s.organization.organization(org)).reference, ref);
      await s.claims.decide(org, c.reference, decisionFrom(req.body, c));
      return { redirect: `/console/organizations/${org}/claims/${c.reference}`, notice: 'Claim decided.' };
    },
    claimPage,
  );
}

/** Jobs counted by kind and organization, and the dead ones to retry. */
function jobsPages(r: DashRouter): void {
  const { s } = r;
  const jobsPage = async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const [dead, counts, orgs] = await Promise.all([
      jobsRepo.list(s.db, { status: 'dead', limit: 100 }),
      jobsRepo.countsBy(s.db),
      allOrgs(s),
    ]);
    const orgName = new Map(orgs.map((o) => [o.reference, o.name]));
    const STATES = ['pending', 'running', 'succeeded', 'dead'];
    const sum = (rows: typeof counts, state: string) =>
      rows.filter((c) => c.status === state).reduce((n, c) => n + c.n, 0);
    const group = (key: (c: (typeof counts)[number]) => string) => {
      const m = new Map<string, typeof counts>();
      for (const c of counts) m.set(key(c), [...(m.get(key(c)) ?? []), c]);
      return [...m];
    };
    const countTable = (title: string, groups: Array<[string, typeof counts]>) =>
      table(
        [title, ...STATES],
        groups.map(
          ([label, rows]) =>
            html`<tr><td>${label}</td>${STATES.map((st) => html`<td>${st === 'dead' && sum(rows, st) ? badge(String(sum(rows, st)), 'bad') : sum(rows, st)}</td>`)}</tr>`,
        ),
        {
          caption: `Jobs by ${title.toLowerCase()}`,
          empty: 'No jobs yet. Webhook deliveries, renders and maintenance run as jobs and are counted here.',
        },
      );
    return page(
      ctx.page,
      'Jobs',
      html`<div class="grid">${countTable(
        'Kind',
        group((c) => c.kind),
      )}${countTable(
        'Organization',
        group((c) => (c.organization_id ? (orgName.get(c.organization_id) ?? c.organization_id) : 'the service')),
      )}</div>
<h2>Dead jobs</h2>
${table(
  ['Job', 'Kind', 'Attempts', 'Last error', 'Failed', ''],
  dead.map(
    (
      j,
    ) => html`<tr><td>${j.id}</td><td>${j.kind}</td><td>${j.attempts}</td><td><code>${j.last_error ?? ''}</code></td><td>${fmtDate(j.finished_at)}</td>
<td>${buttonForm(`/console/jobs/${j.id}/retry`, ctx.page.csrf, 'Retry')}</td></tr>`,
  ),
  {
    caption: 'Dead jobs, newest first',
    empty: 'No dead jobs. A job that fails all its attempts shows here with its last error and a retry button.',
  },
)}`,
      { error: opts.error, notice: opts.notice },
    );
  };
  r.page('/console/jobs', 'operator', jobsPage);
  r.action(
    '/console/jobs/:ref/retry',
    'operator',
    async (req) => {
      const id = /^\d{1,15}$/.test(refParam(req)) ? Number(refParam(req)) : 0;
      if (!id || !(await jobsRepo.retry(s.db, id, s.clock.now()))) throw notFound('Dead job');
      s.worker?.nudge();
      return { redirect: '/console/jobs', notice: `Job ${id} queued again.` };
    },
    jobsPage,
  );
}

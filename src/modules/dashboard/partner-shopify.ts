import type { FastifyRequest } from 'fastify';
import { badRequest, notFound } from '../../platform/errors.ts';
import { required, value, values } from './forms.ts';
import {
  type Html,
  badge,
  buttonForm,
  field,
  fmtDate,
  form,
  html,
  select,
  shortRef,
  statusTone,
  table,
} from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, DashboardServices, PageFn, PageOptions } from './router.ts';

const ALL = { limit: 100 };
const SELLING = new Set(['launched', 'sunsetted', 'prelaunched']);

const tone = (status: string) =>
  status === 'connected' || status === 'published' || status === 'done'
    ? 'ok'
    : status === 'failed' || status === 'disconnected'
      ? 'bad'
      : status === 'demo' || status === 'skipped' || status === 'archived'
        ? 'neutral'
        : statusTone(status);

/** What an operator does to turn Shopify stores on, shown where a partner would look for them. */
function setupHelp(base: string): Html {
  return html`<div class="card"><h2>Shopify is not set up on this service</h2>
<p>Partners connect Shopify stores through a Shopify app. To turn it on:</p>
<ol><li>Create an app in the Shopify Partner Dashboard (or the Dev Dashboard).</li>
<li>Set its App URL to <code>${base}/dashboard/shopify</code> and its allowed redirection URL to <code>${base}/integrations/shopify/callback</code>.</li>
<li>Set the compliance (privacy) webhooks — customer data request, customer redact and shop redact — to <code>${base}/integrations/shopify/webhooks</code>.</li>
<li>Give the service the app's client ID and secret as <code>SHOPIFY_API_KEY</code> and <code>SHOPIFY_API_SECRET</code> (and <code>SHOPIFY_SCOPES</code> if you need other scopes), then restart it.</li></ol>
<p>Everything else works without it. See docs/shopify.md.</p></div>`;
}

type Storefronts = DashboardServices['storefronts'];
type Calls = Awaited<ReturnType<Storefronts['publicationCalls']>>;
type Publications = Awaited<ReturnType<Storefronts['publishedProducts']>>;
type Connection = NonNullable<Awaited<ReturnType<Storefronts['connection']>>>;

const refParam = (req: FastifyRequest) => (req.params as { ref: string }).ref;

/** The organization's own connection of that store; another organization's is not found. */
async function ownConnection(sf: Storefronts, ref: string, orgId: string): Promise<Connection> {
  const conn = await sf.connection(ref);
  if (!conn || conn.organizationId !== orgId) throw notFound('Shopify store', ref);
  return conn;
}

/** The partner's Shopify stores: the list with connecting one, and each store's page. */
export function partnerShopifyPages(r: DashRouter): void {
  shopifyListPages(r);
  shopifyStorePages(r);
}

/** The connected stores, and connecting another through Shopify's install screen. */
function shopifyListPages(r: DashRouter): void {
  const { s } = r;
  const sf = s.storefronts;
  const listPage = async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const [conns, { stores }, { accounts }, { brands }] = await Promise.all([
      sf.connections(ctx.orgId),
      s.organization.listStores(ctx.orgId, ALL),
      s.organization.listAccounts(ctx.orgId, ALL),
      s.organization.listBrands(ctx.orgId, ALL),
    ]);
    const names = new Map(stores.map((x) => [x.reference, x.name]));
    const rows = conns.map(
      (c) =>
        html`<tr><td><a href="/dashboard/shopify/${c.storeId}">${names.get(c.storeId) ?? c.storeId}</a></td><td>${c.shopDomain}</td><td>${badge(c.status, tone(c.status))}</td><td>${fmtDate(c.connectedAt)}</td></tr>`,
    );
    const v = (k: string) => (opts.values?.[k] as string | undefined) ?? null;
    const connect = sf.configured()
      ? html`<h2>Connect a Shopify store</h2>${form(
          '/dashboard/shopify/connect',
          ctx.page.csrf,
          html`${field({ label: 'Shop address', name: 'shop', required: true, maxlength: 255, value: v('shop'), help: 'your-store.myshopify.com — you approve the connection on Shopify next' })}
${field({ label: 'Store name', name: 'name', required: true, maxlength: 100, value: v('name') })}
${select({ label: 'Account billed', name: 'account', value: v('account'), options: accounts.map((a) => ({ value: a.reference, label: a.name })) })}
${select({ label: 'Brand on packaging and tracking pages', name: 'brand', value: v('brand'), options: brands.map((b) => ({ value: b.reference, label: b.name })) })}
<button class="btn">Connect on Shopify</button>`,
          { label: 'Connect a Shopify store' },
        )}`
      : setupHelp(s.config.publicBaseUrl);
    return page(
      ctx.page,
      'Shopify stores',
      html`<p>A connected Shopify store sends its orders here as they are placed; shipments go back with their tracking, and designs you publish appear in the store with their mockups.</p>
${table(['Store', 'Shop', 'Status', 'Connected'], rows, { caption: 'Shopify stores', empty: 'No Shopify store is connected yet.' })}
${connect}`,
      opts,
    );
  };
  r.page('/dashboard/shopify', 'partner', listPage);
  r.action(
    '/dashboard/shopify/connect',
    'partner',
    async (req, ctx) => ({
      redirect: await sf.installUrl(ctx.orgId, {
        shop: required(req.body, 'shop', 'Shop address', 255),
        name: required(req.body, 'name', 'Store name', 100),
        accountId: required(req.body, 'account', 'Account'),
        brandId: required(req.body, 'brand', 'Brand'),
      }),
    }),
    listPage,
  );
}

/** Calls to Shopify that kept failing, each with a retry button. */
const failuresTable = (ref: string, failed: Awaited<ReturnType<Storefronts['operations']>>, csrf: string) =>
  table(
    ['What', 'For', 'Attempts', 'Last error', ''],
    failed.map(
      (o) =>
        html`<tr><td>${o.kind.replace(/_/g, ' ')}</td><td>${o.subject}</td><td>${o.attempts}</td><td>${o.lastError ?? ''}</td><td>${buttonForm(`/dashboard/shopify/${ref}/operations/${o.id}/retry`, csrf, 'Retry')}</td></tr>`,
    ),
    { caption: 'Sync failures', empty: 'No failed call to Shopify.' },
  );

/** Where a publication's last call to Shopify stands: retrying with its error, or failed with a retry button. */
function syncCell(ref: string, calls: Calls, csrf: string, pubRef: string, status: string): Html {
  const c = calls.get(pubRef);
  const verb = c?.kind === 'unpublish' ? 'archiving' : 'publishing';
  if (c?.state === 'retrying')
    return html`${badge('retrying', 'warn')}<p class="help">${verb} on Shopify: attempt ${c.attempts + 1} of ${c.maxAttempts}, the last one failed: ${c.lastError ?? ''}</p>`;
  if (c?.state === 'failed')
    return html`${badge('failed', 'bad')}<p class="help">${verb} gave up after ${c.attempts} attempt(s): ${c.lastError ?? ''}</p>${buttonForm(`/dashboard/shopify/${ref}/operations/${c.operationId}/retry`, csrf, c.kind === 'unpublish' ? 'Retry archiving' : 'Retry publishing')}`;
  if (c?.state === 'waiting')
    return html`${badge(status, 'warn')}<p class="help">${verb} on Shopify: waiting for its turn</p>`;
  return badge(status, tone(status));
}

/** The designs published to the store, with their mockups and their sync state. */
const publishedTable = (ref: string, pubs: Publications, calls: Calls, csrf: string) =>
  table(
    ['Design', 'Models', 'Price', 'Status', 'Mockups', ''],
    pubs.map(
      (p) =>
        html`<tr><td>${p.title}</td><td>${p.productReferences.length}</td><td>${(p.priceCents / 100).toFixed(2)}</td><td>${syncCell(ref, calls, csrf, p.reference, p.status)}</td><td>${Array.from({ length: Math.min(p.mediaCount, 3) }, (_, n) => html`<img class="thumb" src="/dashboard/shopify/${ref}/publications/${p.reference}/media/${n}" alt="Mockup ${n + 1} of ${p.title}" width="56" height="56">`)}</td><td>${p.status === 'archived' ? '' : buttonForm(`/dashboard/shopify/${ref}/publications/${p.reference}/unpublish`, csrf, 'Unpublish', { danger: true, confirm: `Archive ${p.title} on Shopify?` })}</td></tr>`,
    ),
    { caption: 'Published products', empty: 'Nothing published yet.' },
  );

/** Publishing a design on the store's models, unless the store was disconnected. */
const publishForm = (
  ref: string,
  conn: Connection,
  csrf: string,
  opts: PageOptions,
  images: Array<{ reference: string; filename?: string | null }>,
  printable: Array<{ reference: string; name: string }>,
) =>
  conn.status === 'disconnected'
    ? html`<p>This store was disconnected from ${conn.shopDomain}; its orders and history stay here. Connect it again to publish.</p>`
    : form(
        `/dashboard/shopify/${ref}/publish`,
        csrf,
        html`${field({ label: 'Product title', name: 'title', required: true, maxlength: 255, value: (opts.values?.title as string) ?? null })}
${select({ label: 'Artwork', name: 'image', options: images.map((i: { reference: string; filename?: string | null }) => ({ value: i.reference, label: i.filename ? `${i.filename} (${shortRef(i.reference)})` : i.reference })) })}
<div class="field"><label for="f-products">Models (one variant each)</label><select id="f-products" name="products" multiple size="8" required>${printable.map((p) => html`<option value="${p.reference}">${p.name}</option>`)}</select><p class="help">Hold Ctrl or ⌘ to choose several.</p></div>
${field({ label: 'Retail price', name: 'price', type: 'number', required: true, min: 0.01, attrs: html` step="0.01"`, help: 'In the shop currency, the same for every model' })}
<button class="btn">Publish</button>`,
        { label: 'Publish a design' },
      );

/** One store's page: its state, failed calls, publications, and the recent calls, webhooks and privacy requests. */
function storeView(s: DashboardServices): PageFn {
  const sf = s.storefronts;
  return async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const ref = refParam(req);
    const conn = await ownConnection(sf, ref, ctx.orgId);
    const [store, failed, recent, inbox, privacy, pubs, calls, products, { images }] = await Promise.all([
      s.organization.store(ctx.orgId, ref),
      sf.operations(ref, 'failed', 50),
      sf.operations(ref, null, 10),
      sf.inbox(ref, 10),
      sf.privacyLog(ref, 10),
      sf.publishedProducts(ctx.orgId, ref).catch(() => []),
      sf.publicationCalls(ref),
      s.catalog.productSummaries(ctx.orgId),
      s.images.list(ctx.orgId, { limit: 50 }),
    ]);
    const printable = products.filter((p) => p.printable && SELLING.has(p.status));
    const csrf = ctx.page.csrf;
    const body = html`<dl class="facts"><dt>Shop</dt><dd>${conn.shopDomain}</dd><dt>Status</dt><dd>${badge(conn.status, tone(conn.status))}</dd>
<dt>Connected</dt><dd>${fmtDate(conn.connectedAt)}</dd>${conn.disconnectedAt ? html`<dt>Disconnected</dt><dd>${fmtDate(conn.disconnectedAt)}</dd>` : ''}
<dt>Fulfillment location</dt><dd>${conn.locationId ?? (conn.status === 'demo' ? 'demo shop (no Shopify behind it)' : 'being registered')}</dd>
<dt>Orders</dt><dd><a href="/dashboard/orders?store=${ref}">Orders of ${store.name}</a></dd></dl>
${conn.status === 'demo' ? html`<p class="notice">This is the demo's stand-in shop: its orders were taken from Shopify's documented example order; calls to Shopify are skipped.</p>` : ''}
<h2>Sync failures</h2><p>Calls to Shopify that kept failing after their retries. Retry one once the cause is fixed.</p>${failuresTable(ref, failed, csrf)}
<h2>Published products</h2>${publishedTable(ref, pubs, calls, csrf)}
<h2>Publish a design</h2>${publishForm(ref, conn, csrf, opts, images, printable)}
<h2>Recent calls to Shopify</h2>${table(
      ['What', 'For', 'Status', 'Note', 'When'],
      recent.map(
        (o) =>
          html`<tr><td>${o.kind.replace(/_/g, ' ')}</td><td>${o.subject}</td><td>${badge(o.status, tone(o.status))}</td><td>${o.lastError ?? ''}</td><td>${fmtDate(o.updatedAt)}</td></tr>`,
      ),
      { caption: 'Recent calls to Shopify', empty: 'No call yet.' },
    )}
<h2>Recent webhooks</h2>${table(
      ['Topic', 'Received', 'Outcome'],
      inbox.map(
        (w) => html`<tr><td>${w.topic}</td><td>${fmtDate(w.receivedAt)}</td><td>${w.outcome ?? 'waiting'}</td></tr>`,
      ),
      { caption: 'Recent webhooks', empty: 'No webhook received yet.' },
    )}
<h2>Privacy requests</h2>${table(
      ['Request', 'What was done', 'When'],
      privacy.map((p) => html`<tr><td>${p.topic}</td><td>${p.action}</td><td>${fmtDate(p.createdAt)}</td></tr>`),
      { caption: 'Privacy requests', empty: 'No privacy request received.' },
    )}`;
    return page(ctx.page, `Shopify: ${store.name}`, body, opts);
  };
}

/** One store's page, publishing and unpublishing designs, retrying a failed call, and the mockups shown. */
function shopifyStorePages(r: DashRouter): void {
  const { s } = r;
  const sf = s.storefronts;
  const storePage = storeView(s);
  r.page('/dashboard/shopify/:ref', 'partner', storePage);
  r.action(
    '/dashboard/shopify/:ref/publish',
    'partner',
    async (req, ctx) => {
      const price = Number(value(req.body, 'price'));
      if (!Number.isFinite(price) || price <= 0) throw badRequest('Retail price must be a positive amount');
      const products = values(req.body, 'products');
      if (products.length === 0) throw badRequest('Choose at least one model');
      const p = await sf.publish(ctx.orgId, refParam(req), {
        title: required(req.body, 'title', 'Product title', 255),
        imageReference: required(req.body, 'image', 'Artwork'),
        productReferences: products,
        priceCents: Math.round(price * 100),
      });
      return { redirect: `/dashboard/shopify/${refParam(req)}`, notice: `${p.title} is being published to Shopify.` };
    },
    storePage,
  );
  r.action(
    '/dashboard/shopify/:ref/publications/:pub/unpublish',
    'partner',
    async (req, ctx) => {
      const p = await sf.unpublish(ctx.orgId, refParam(req), (req.params as { pub: string }).pub);
      return { redirect: `/dashboard/shopify/${refParam(req)}`, notice: `${p.title} is being archived on Shopify.` };
    },
    storePage,
  );
  r.action(
    '/dashboard/shopify/:ref/operations/:op/retry',
    'partner',
    async (req, ctx) => {
      const ref = refParam(req);
      await ownConnection(sf, ref, ctx.orgId);
      const ok = await sf.retryOperation(ref, (req.params as { op: string }).op);
      return {
        redirect: `/dashboard/shopify/${ref}`,
        notice: ok ? 'Queued again.' : 'That call is not failed any more.',
      };
    },
    storePage,
  );
  r.app.get(
    '/dashboard/shopify/:ref/publications/:pub/media/:n',
    { config: { access: 'public', dashboard: 'partner' } },
    async (req, reply) => {
      const ctx = await r.context(req, 'partner');
      const p = req.params as { ref: string; pub: string; n: string };
      const m = await sf.mediaOf(ctx.orgId, p.ref, p.pub, Number(p.n) || 0);
      if (!m?.bytes) throw notFound('Mockup');
      return reply.type(m.mimeType).header('cache-control', 'private, max-age=3600').send(m.bytes);
    },
  );
}

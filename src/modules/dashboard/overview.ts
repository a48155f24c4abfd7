import type { FastifyReply } from 'fastify';
import sharp from 'sharp';
import { amsterdamDay } from '../../platform/amsterdam.ts';
import { notFound, mustFind } from '../../platform/errors.ts';
import { sendMedia } from '../catalog/routes.ts';
import { type Series, gauge, stackedBars } from './charts.ts';
import { type Html, badge, euros, fmtDate, html, statusTone } from './html.ts';
import { page } from './layout.ts';
import { productPictureSvg, sendPicture } from './product-picture.ts';
import type { DashRouter } from './router.ts';

const DAY = 86400_000;
const STATUS_SERIES: Series[] = [
  { key: 'pending', label: 'pending', colour: '#8a5300' },
  { key: 'preorder', label: 'pre-order', colour: '#c58b00' },
  { key: 'in_production', label: 'in production', colour: '#0b57d0' },
  { key: 'shipped', label: 'shipped', colour: '#146c2e' },
  { key: 'canceled', label: 'canceled', colour: '#9aa0a6' },
];

/** The partner's start page: what happened in 30 days, what needs attention, and how to begin. */
export function overviewPages(r: DashRouter): void {
  const { s } = r;

  r.page('/dashboard', 'partner', async (_req, ctx) => {
    const now = s.clock.now();
    const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - 29 * DAY);
    const [activity, openClaims, endpoints, keys, unhealthy, tokens, latest] = await Promise.all([
      s.orders.activity(ctx.orgId, since),
      s.claims.pendingCount(ctx.orgId),
      s.webhooks.endpointCount(ctx.orgId),
      s.organization.activeApiKeyCount(ctx.orgId),
      s.webhooks.endpointsInTrouble(ctx.orgId),
      s.rendering.rendertokens(ctx.orgId),
      s.orders.list(ctx.orgId, { limit: 5 }),
    ]);
    const days = Array.from({ length: 30 }, (_, i) => new Date(since.getTime() + i * DAY).toISOString().slice(0, 10));
    const n = new Map(activity.perDay.map((x) => [`${x.day}/${x.status}`, x.count]));
    const images = [
      ...new Set(latest.orders.flatMap((o) => o.orderlines.map((l) => l.imageReference).filter(Boolean))),
    ];
    const weekStart = new Date(new Date(tokens.resets).getTime() - 7 * DAY);
    // An hour early: a week with a daylight-saving change is 167 or 169 hours; days outside it are left out.
    const tokenHours = await s.rendering.rendertokensPerHour(ctx.orgId, new Date(weekStart.getTime() - 3600_000));
    const tokenChart = rendertokenWeek(weekStart, now, tokenHours, tokens.limit);
    const renders = new Map(
      (await s.rendering.latestRenderOfEach(ctx.orgId, images as string[])).map((x) => [
        x.imageReference,
        x.renderReference,
      ]),
    );

    const steps: Array<[boolean, Html]> = [
      [keys > 0, html`<a href="/dashboard/api-keys">Create an API key</a> for your integration.`],
      [
        activity.orders > 0,
        html`Place a test order: <code>POST /v2/orders</code> with your key (see the <a href="/docs">API reference</a>).`,
      ],
      [
        activity.shipped > 0,
        html`Ship it with the test helpers: open the order under <a href="/dashboard/orders">Orders</a> and use <em>Start production</em>, then <em>Ship</em>.`,
      ],
      [endpoints > 0, html`<a href="/dashboard/webhooks">Add a webhook endpoint</a> to hear about every change.`],
    ];
    const done = steps.filter(([d]) => d).length;
    const checklist =
      done < steps.length
        ? html`<section class="card" aria-labelledby="gs"><h2 id="gs">Getting started (${done} of ${steps.length} done)</h2><ol class="checklist">${steps.map(
            ([d, text]) =>
              html`<li class="${d ? 'done' : 'todo'}"><span class="tick" aria-hidden="true">${d ? '✓' : '○'}</span> <span class="sr-only">${d ? 'Done: ' : 'To do: '}</span>${text}</li>`,
          )}</ol></section>`
        : '';

    const tile = (href: string, label: string, value: Html | string | number, tone = '') =>
      html`<a class="card tile ${tone}" href="${href}"><span class="tile-label">${label}</span><span class="tile-value">${value}</span></a>`;

    const webhookAlert = unhealthy.length
      ? html`<section class="card alert-card" aria-labelledby="wh"><h2 id="wh">Webhook endpoints that need attention</h2><ul>${unhealthy.map(
          (e) =>
            html`<li><a href="/dashboard/webhooks/${e.reference}" class="ref">${e.url}</a> ${e.enabled ? badge(`failing since ${fmtDate(e.failingSince)}`, 'bad') : badge(`disabled${e.disabledReason ? `: ${e.disabledReason}` : ''}`, 'bad')}</li>`,
        )}</ul></section>`
      : '';

    const latestOrders = latest.orders.length
      ? html`<ul class="order-cards">${latest.orders.map((o) => {
          const first = o.orderlines.find((l) => l.imageReference);
          const render = first?.imageReference ? renders.get(first.imageReference) : undefined;
          return html`<li class="card"><div class="pics">${first?.imageReference ? html`<img src="/dashboard/images/${first.imageReference}/thumbnail" alt="Artwork of order ${o.legacyOrderCode}" width="64" height="64" loading="lazy">` : html`<span class="nopic">no artwork</span>`}${render ? html`<img src="/dashboard/renders/${render}/thumbnail" alt="Mockup of order ${o.legacyOrderCode}" width="64" height="64" loading="lazy">` : ''}</div>
<div><a href="/dashboard/orders/${o.reference}">${o.legacyOrderCode}</a> ${badge(o.status.code.replace('_', ' '), statusTone(o.status.code))}<br><span class="help">${o.orderlines.reduce((k, l) => k + l.quantity, 0)} items · ${euros(o.prices.total)} · ${fmtDate(o.created)}</span></div></li>`;
        })}</ul>`
      : html`<p class="empty">No orders yet. Place one with <code>POST /v2/orders</code>; it shows here with its artwork.</p>`;

    return page(
      ctx.page,
      'Overview',
      html`${checklist}${webhookAlert}
<div class="tiles">${tile('/dashboard/orders', 'Spend, last 30 days', euros(activity.spendCents))}${tile('/dashboard/orders?status=in_production', 'Orders in production', activity.inProduction)}
${tile('/dashboard/claims', 'Open claims', openClaims, openClaims ? 'warn' : '')}${tile('/dashboard/webhooks', 'Failing webhook endpoints', unhealthy.length, unhealthy.length ? 'bad' : '')}</div>
<section class="card" aria-labelledby="opd"><h2 id="opd">Orders per day, last 30 days</h2>${stackedBars({ id: 'opd', title: 'Orders per day over the last 30 days by status', days, series: STATUS_SERIES, values: (d, k) => n.get(`${d}/${k}`) ?? 0, empty: 'No orders in the last 30 days. Orders you place appear here by day and status.' })}</section>
<section class="card" aria-labelledby="rt"><h2 id="rt">Rendertokens this week</h2>${gauge({ title: 'Rendertokens used this week', used: tokens.used, limit: tokens.limit })}<p>${tokens.used} of ${tokens.limit} used; the limit resets ${fmtDate(tokens.resets)}. <a href="/dashboard/usage">Usage</a></p>${tokenChart}</section>
<section aria-labelledby="lo"><h2 id="lo">Latest orders</h2>${latestOrders}</section>`,
    );
  });
  pictureRoutes(r);
}

/** Pictures the pages show: product media and drawings, artwork and render thumbnails. */
function pictureRoutes(r: DashRouter): void {
  const { s } = r;
  /** A product picture for the order page; only products the organization may see. */
  r.app.get(
    '/dashboard/products/:ref/media/:filename',
    { config: { access: 'public', dashboard: 'partner' } },
    async (req, reply) => {
      const { ref, filename } = req.params as { ref: string; filename: string };
      const orgId = req.dashboardSession!.user.organization_id!;
      return sendMedia(req, reply, s.blobs, await s.catalog.mediaFile(orgId, ref, filename));
    },
  );

  /** A drawing of a device product without pictures; only products the organization may see. */
  r.app.get(
    '/dashboard/products/:ref/picture.svg',
    { config: { access: 'public', dashboard: 'partner' } },
    async (req, reply) => {
      const { ref } = req.params as { ref: string };
      const orgId = req.dashboardSession!.user.organization_id!;
      const p = mustFind((await s.catalog.productCards(orgId, [ref])).get(ref), 'Product');
      const shape = (await s.catalog.productShapes([ref])).get(ref);
      if (!shape?.device) throw notFound('Product drawing');
      return sendPicture(
        reply,
        productPictureSvg({ name: p.name, geometry: shape.device, caseType: shape.caseType?.key ?? null }),
      );
    },
  );

  /** A small picture of the partner's own artwork (never another organization's). */
  const thumbnail = async (orgId: string, ref: string, reply: FastifyReply) => {
    const handle = await s.images.imageForOrganization(orgId, ref);
    const bytes = mustFind(handle ? await s.images.readImage(handle.blobKey) : null, 'Image');
    const thumb = await sharp(bytes, { limitInputPixels: 7000 * 7000 })
      .resize(240, 240, { fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer();
    return reply.type('image/png').header('cache-control', 'private, max-age=3600').send(thumb);
  };
  r.app.get(
    '/dashboard/images/:ref/thumbnail',
    { config: { access: 'public', dashboard: 'partner' } },
    async (req, reply) =>
      thumbnail(req.dashboardSession!.user.organization_id!, (req.params as { ref: string }).ref, reply),
  );
  // The operator's view of a partner's artwork and mockups, for the claim review.
  r.app.get(
    '/console/organizations/:org/images/:ref/thumbnail',
    { config: { access: 'public', dashboard: 'operator' } },
    async (req, reply) => {
      const { org, ref } = req.params as { org: string; ref: string };
      return thumbnail(org, ref, reply);
    },
  );
  r.app.get(
    '/console/organizations/:org/renders/:ref/thumbnail',
    { config: { access: 'public', dashboard: 'operator' } },
    async (req, reply) => {
      const { org, ref } = req.params as { org: string; ref: string };
      const f = await s.rendering.renderFile(org, ref, 'thumbnail');
      if (!f.ready) throw notFound('Render');
      return reply
        .type(f.mimeType)
        .header('cache-control', 'private, max-age=3600')
        .header('content-length', f.size)
        .send(f.stream);
    },
  );
}

const TOKEN_SERIES: Series[] = [
  { key: 'before', label: 'used on earlier days', colour: '#9bb5e4' },
  { key: 'day', label: 'used that day', colour: '#0b57d0' },
];

/** Rendertokens used so far this week, day by day (Amsterdam days, like the limit), against the limit. */
function rendertokenWeek(weekStart: Date, now: Date, hours: Array<{ hour: Date; tokens: number }>, limit: number) {
  // Noon of each day, so a daylight-saving change never moves it into the next or previous date.
  const days = Array.from({ length: 7 }, (_, i) => amsterdamDay(new Date(weekStart.getTime() + i * DAY + DAY / 2)));
  const perDay = new Map<string, number>();
  for (const h of hours) {
    const d = amsterdamDay(h.hour);
    perDay.set(d, (perDay.get(d) ?? 0) + h.tokens);
  }
  const today = amsterdamDay(now);
  const before = new Map<string, number>();
  let running = 0;
  for (const d of days) {
    before.set(d, d <= today ? running : 0);
    running += perDay.get(d) ?? 0;
  }
  return stackedBars({
    id: 'rtw',
    title: 'Rendertokens used so far this week, by day, against the weekly limit',
    days,
    series: TOKEN_SERIES,
    values: (d, k) => (k === 'day' ? (perDay.get(d) ?? 0) : (before.get(d) ?? 0)),
    limit: { value: limit, label: `limit ${limit}` },
    empty: `No rendertokens used this week. Each render you request with POST /v2/renders counts against the weekly limit of ${limit}.`,
  });
}

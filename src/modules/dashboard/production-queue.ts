import type { FastifyRequest } from 'fastify';
import { text, value } from './forms.ts';
import { type Html, badge, buttonForm, field, fmtDate, form, html, statusTone, table } from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, DashboardServices, PageFn, PageOptions } from './router.ts';
import { sendPdf } from '../production/routes.ts';
import type { ProductionService } from '../production/service.ts';

type Queue = Awaited<ReturnType<ProductionService['queue']>>;
type QueuedOrder = Queue['waiting'][number];
type FileState = { status: string; error: string | null; size: number | null };

const fileTone = (s: string) => (s === 'ready' ? 'ok' : s === 'failed' ? 'bad' : 'warn');
const kb = (n: number | null) => (n === null ? '' : ` (${Math.max(1, Math.round(n / 1024))} kB)`);

/** Below this the artwork prints visibly soft: the floor checks with the partner first. */
const SOFT_DPI = 150;

/** A file's download link once it is made, else its state (and why it failed). */
function fileLink(href: string, label: string, f: FileState & { print?: { effectiveDpi?: number } }): Html {
  const dpi = f.print?.effectiveDpi;
  const soft = dpi !== undefined && dpi < SOFT_DPI ? html` ${badge(`low resolution: ${dpi} dpi`, 'warn')}` : '';
  if (f.status === 'ready')
    return html`<a href="${href}" download>${label}</a><span class="help">${kb(f.size)}</span>${soft}`;
  return html`${label}: ${badge(f.status, fileTone(f.status))}${f.error ? html`<br><span class="help">${f.error}</span>` : ''}`;
}

const HOLD_LABELS: Record<string, string> = {
  insufficient_balance: 'held: no balance',
  preorder: 'held: pre-order',
  out_of_stock: 'held: out of stock',
  release_failed: 'held: release failed',
};

/** Why the release holds the order, and since when; it goes on by itself once the reason clears. */
const holdNote = (o: QueuedOrder): Html =>
  o.hold
    ? html`<br>${badge(HOLD_LABELS[o.hold.reason] ?? o.hold.reason, 'warn')}<br><span class="help hold-reason">${o.hold.message} (since ${fmtDate(o.hold.since)})</span>`
    : html``;

/** How orders reach production, in one sentence for the floor. */
function releaseLine(r: Queue['release']): string {
  if (r.mode === 'manual') return 'Release to production: by hand (Start production on each order).';
  if (r.mode === 'immediate') return 'Release to production: immediate — orders go in within a minute unless held.';
  return `Release to production: at ${r.cutoffs!.join(' and ')} (${r.timeZone}); next cut-off ${fmtDate(r.nextCutoff!)}. Held orders go on by themselves once the reason clears.`;
}

const back = '/console/production';
const orderRef = (req: FastifyRequest) => value(req.body, 'orderReference') ?? '';

const printFiles = (o: QueuedOrder) =>
  o.printFiles.length === 0
    ? html`<span class="help">${o.status === 'in_production' ? 'nothing to print' : 'made when production starts'}</span>`
    : html`${o.printFiles.map((f) => html`<div>${fileLink(`/console/production/orders/${o.reference}/print-files/${f.orderlineIndex}`, `Line ${f.orderlineIndex} × ${f.copies}`, f)}</div>`)}`;

const orderRows = (list: QueuedOrder[], action: (o: QueuedOrder, csrf: string) => Html, csrf: string) =>
  list.map(
    (o) =>
      html`<tr id="${o.reference}"><td>${o.legacyOrderCode}<br><span class="help ref">${o.reference}</span></td><td>${o.organizationName}</td><td>${badge(o.status, statusTone(o.status))}<br><span class="help">since ${fmtDate(o.since)}</span>${holdNote(o)}</td><td>${o.shippingKind}${o.shippingLevel ? `, ${o.shippingLevel}` : ''}</td><td>${printFiles(o)}</td><td>${action(o, csrf)}</td></tr>`,
  );
const HEAD = ['Order', 'Organization', 'Status', 'Shipping', 'Print files', 'Action'];

/** The week's shipments, each with its label and packing slip (or their state) and a way to make them again. */
const shipmentRows = (shipped: Queue['shipped'], csrf: string) =>
  shipped.map((sh) => {
    const doc = (kind: 'shipping_label' | 'packing_slip', label: string) => {
      const d = sh.documents.find((x) => x.kind === kind);
      const slug = kind.replace('_', '-');
      return d
        ? fileLink(`/console/production/shipments/${sh.reference}/${slug}`, label, d)
        : html`<span class="help">${label}: none</span>`;
    };
    return html`<tr><td class="ref">${sh.reference}</td><td>${sh.organizationName}</td><td>${sh.level}${sh.carrier ? `, ${sh.carrier}` : ''}${sh.trackingNumber ? html`<br><code>${sh.trackingNumber}</code>` : ''}</td><td>${fmtDate(sh.created)}</td><td>${doc('shipping_label', 'Shipping label')}<br>${doc('packing_slip', 'Packing slip')}</td><td>${sh.documents.some((d) => d.status === 'failed') || sh.documents.length === 0 ? buttonForm('/console/production/documents', csrf, 'Make again', { hidden: { shipmentReference: sh.reference } }) : ''}</td></tr>`;
  });

/**
 * The factory's queue: orders waiting for production, in production (with their print files) and
 * produced, ready to ship; then the week's shipments with their labels and packing slips.
 */
export function productionQueuePages(r: DashRouter): void {
  const queuePage = productionQueuePage(r.s);
  r.page(back, 'operator', queuePage);
  productionFileRoutes(r);
  productionQueueActions(r, queuePage);
}

/** The queue page itself, each order with the one step the floor takes next. */
function productionQueuePage(s: DashboardServices): PageFn {
  return async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const q = await s.production.queue();
    const csrf = ctx.page.csrf;
    const start = (o: QueuedOrder) =>
      o.status === 'pending'
        ? buttonForm('/console/production/start', csrf, 'Start production', { hidden: { orderReference: o.reference } })
        : html`<span class="help">waits for its product’s launch</span>`;
    const produced = (o: QueuedOrder) =>
      html`${buttonForm('/console/production/produced', csrf, 'Mark produced', { hidden: { orderReference: o.reference } })}${o.printFiles.some((f) => f.status === 'failed') ? buttonForm('/console/production/remake', csrf, 'Make print files again', { hidden: { orderReference: o.reference } }) : ''}`;
    const shipForm = (o: QueuedOrder) =>
      form(
        '/console/production/ship',
        csrf,
        html`<input type="hidden" name="orderReference" value="${o.reference}"><div class="filters">${o.shippingLevel === 'basic' ? '' : html`${field({ label: 'Carrier', name: 'carrier', maxlength: 50 })}${field({ label: 'Tracking number', name: 'trackingNumber', maxlength: 100 })}`}<button type="submit">Ship</button></div>`,
        { label: `Ship ${o.legacyOrderCode}` },
      );
    return page(
      ctx.page,
      'Production queue',
      html`<p class="release">${releaseLine(q.release)}</p>
<p class="stations">Floor stations (touch screen and scanner): <a href="/console/production/stations/picking">Picking</a> · <a href="/console/production/stations/qc">QC</a> · <a href="/console/production/stations/pack">Pack</a> · <a href="/console/production/overview">Overview</a></p>
<p>Print files are made when an order goes into production: the artwork at print resolution with the cut line in the <code>CutContour</code> spot colour. Labels (100 × 150 mm) and packing slips are made when it ships.</p>
<h2>Waiting for production (${q.waiting.length})</h2>
${table(HEAD, orderRows(q.waiting, start, csrf), { caption: 'Oldest first: start production when the blanks are at hand', empty: 'Nothing waits for production.' })}
<h2>In production (${q.inProduction.length})</h2>
${table(HEAD, orderRows(q.inProduction, produced, csrf), { caption: 'Oldest first: print from the files, then mark produced', empty: 'Nothing in production.' })}
<h2>Ready to ship (${q.readyToShip.length})</h2>
${table(HEAD, orderRows(q.readyToShip, shipForm, csrf), { caption: 'Packed: ship with the carrier’s tracking number', empty: 'Nothing ready to ship.' })}
<h2>Shipped this week (${q.shipped.length})</h2>
${table(['Shipment', 'Organization', 'Service', 'Shipped', 'Documents', 'Action'], shipmentRows(q.shipped, csrf), { caption: 'Shipments of the last 7 days', empty: 'Nothing shipped this week.' })}`,
      { error: opts.error, notice: opts.notice },
    );
  };
}

/** The print files, labels and packing slips as PDF downloads. */
function productionFileRoutes(r: DashRouter): void {
  const { s } = r;
  const download = { config: { access: 'public' as const, dashboard: 'operator' as const } };
  r.app.get('/console/production/orders/:ref/print-files/:line', download, async (req, reply) => {
    const { ref, line } = req.params as { ref: string; line: string };
    return sendPdf(reply, await s.production.printFilePdf(ref, /^\d{1,5}$/.test(line) ? Number(line) : 0));
  });
  r.app.get('/console/production/shipments/:ref/:kind', download, async (req, reply) => {
    const { ref, kind } = req.params as { ref: string; kind: string };
    return sendPdf(reply, await s.production.documentPdf(ref, kind));
  });
}

/** The queue's steps: start, mark produced, make files again, ship. */
function productionQueueActions(r: DashRouter, queuePage: PageFn): void {
  const { s } = r;
  r.action(
    '/console/production/start',
    'operator',
    async (req) => {
      await s.orders.startProduction(null, orderRef(req));
      return { redirect: back, notice: `Order ${orderRef(req)} is in production; its print files are being made.` };
    },
    queuePage,
  );
  r.action(
    '/console/production/produced',
    'operator',
    async (req) => {
      await s.production.markProduced(orderRef(req));
      return { redirect: back, notice: `Order ${orderRef(req)} is produced and ready to ship.` };
    },
    queuePage,
  );
  r.action(
    '/console/production/remake',
    'operator',
    async (req) => {
      await s.production.remakePrintFiles(orderRef(req));
      s.worker?.nudge();
      return { redirect: back, notice: `The print files of ${orderRef(req)} are being made again.` };
    },
    queuePage,
  );
  r.action(
    '/console/production/documents',
    'operator',
    async (req) => {
      const ref = value(req.body, 'shipmentReference') ?? '';
      await s.production.remakeDocuments(ref);
      s.worker?.nudge();
      return { redirect: back, notice: `The label and packing slip of ${ref} are being made again.` };
    },
    queuePage,
  );
  r.action(
    '/console/production/ship',
    'operator',
    async (req) => {
      const carrier = text(req.body, 'carrier', 'Carrier', { max: 50 });
      const trackingNumber = text(req.body, 'trackingNumber', 'Tracking number', { max: 100 });
      const sh = await s.shipments.ship(
        null,
        {
          orderReferences: [orderRef(req)],
          ...(carrier ? { carrier } : {}),
          ...(trackingNumber ? { trackingNumber } : {}),
        },
        'form',
      );
      s.worker?.nudge();
      return {
        redirect: back,
        notice: `Order ${orderRef(req)} shipped as ${sh.reference}; its label and packing slip are being made.`,
      };
    },
    queuePage,
  );
}

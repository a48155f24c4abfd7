import type { FastifyInstance } from 'fastify';
import type { BrandLook } from '../organization/service.ts';
import type { ShipmentsService } from './service.ts';
import type { ShipmentRow, TrackingEventRow } from './repo.ts';
import { currentStatus } from './tracking-events.ts';

const STEPS = [
  ['shipped', 'Shipped'],
  ['in_transit', 'In transit'],
  ['out_for_delivery', 'Out for delivery'],
  ['delivered', 'Delivered'],
] as const;
const LABEL: Record<string, string> = {
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  delivered: 'Delivered',
  exception: 'Delivery problem',
  returned: 'Returned to sender',
};
const HEADLINE: Record<string, string> = {
  in_transit: 'Your parcel is on its way',
  out_for_delivery: 'Your parcel is out for delivery today',
  delivered: 'Your parcel has been delivered',
  exception: 'There is a problem with the delivery',
  returned: 'Your parcel is on its way back to the sender',
};

/** Dates and times as the recipient's shop reads them: in Europe/Amsterdam, where parcels leave. */
const AMS = 'Europe/Amsterdam';
const amsDate = (d: Date) => d.toLocaleDateString('en-CA', { timeZone: AMS });
const amsDateTime = (d: Date) =>
  d.toLocaleString('en-GB', {
    timeZone: AMS,
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });

/**
 * How far the parcel got on the happy path. A problem or a return marks the step it was reached
 * from (out for delivery, say) in red rather than throwing the bar back to "Shipped".
 */
function progress(events: TrackingEventRow[], primary: string): string {
  const status = currentStatus(events);
  const onPath = events.filter((e) => STEPS.some(([k]) => k === e.status)).at(-1)?.status;
  const reached = Math.max(
    0,
    STEPS.findIndex(([k]) => k === onPath),
  );
  const trouble = status === 'exception' || status === 'returned';
  const steps = STEPS.map(
    ([, label], i) =>
      `<li class="${i <= reached ? 'done' : ''}${i === reached ? ' current' : ''}"${i === reached ? ' aria-current="step"' : ''}>${label}</li>`,
  ).join('');
  return `<ol class="progress${trouble ? ' trouble' : ''}" id="progress" style="--brand:${primary}">${steps}</ol>`;
}

/** Black or white text, whichever reads better on the brand colour (WCAG relative luminance). */
function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#ffffff' : '#1b1b1b';
}

function history(events: TrackingEventRow[], shipped: Date): string {
  const rows = [...events]
    .reverse()
    .map(
      (e) =>
        `<li><time datetime="${e.occurred_at.toISOString()}">${escapeHtml(amsDateTime(e.occurred_at))}</time><strong>${escapeHtml(LABEL[e.status] ?? e.status)}</strong>${e.location ? `<span class="where">${escapeHtml(e.location)}</span>` : ''}${e.description ? `<span class="what">${escapeHtml(e.description)}</span>` : ''}</li>`,
    )
    .join('');
  const left = `<li><time datetime="${shipped.toISOString()}">${escapeHtml(amsDateTime(shipped))}</time><strong>Shipped</strong><span class="what">The parcel left our production site.</span></li>`;
  return `<ol class="history" id="history">${rows}${left}</ol>`;
}

const escapeHtml = (v: unknown) =>
  String(v ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const COLOR = /^#[0-9a-fA-F]{6}$/;
const safeColor = (c: string | undefined, fallback: string) => (c && COLOR.test(c) ? c : fallback);
const safeUrl = (u: string | null | undefined) => {
  if (!u) return null;
  try {
    const url = new URL(u);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
};

const countryName = (cc: string) => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(cc) ?? cc;
  } catch {
    return cc;
  }
};

/** Only what a recipient needs to follow the parcel: no names, street or contact data of theirs. */
export function renderTrackingPage(p: {
  shipment: ShipmentRow;
  brand: BrandLook | null;
  city: string;
  countryCode: string;
  events?: TrackingEventRow[];
}): string {
  const events = p.events ?? [];
  const status = currentStatus(events);
  const b = p.brand;
  const name = b?.name ?? 'Your order';
  const primary = safeColor(b?.primaryColor, '#222222');
  const secondary = safeColor(b?.secondaryColor, '#f5f5f5');
  const logo = safeUrl(b?.logoUrl);
  const cs = b?.customerService ?? {};
  const csUrl = safeUrl(cs.url);
  const contact = [
    cs.email ? `<li>E-mail: <a href="mailto:${escapeHtml(cs.email)}">${escapeHtml(cs.email)}</a></li>` : '',
    cs.phonenumber ? `<li>Phone: <span class="phone">${escapeHtml(cs.phonenumber)}</span></li>` : '',
    csUrl ? `<li><a href="${escapeHtml(csUrl)}" rel="noopener noreferrer">Help centre</a></li>` : '',
  ].join('');
  const shipDate = amsDate(p.shipment.shipped_at);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(name)} – shipment tracking</title>
<style>
  body { margin: 0; font-family: system-ui, sans-serif; background: ${secondary}; color: #1b1b1b; }
  header { background: ${primary}; color: ${textOn(primary)}; padding: 1.25rem 1.5rem; display: flex; align-items: center; gap: 1rem; }
  header img { max-height: 48px; max-width: 160px; background: #fff; border-radius: 4px; padding: 4px; }
  header h1 { margin: 0; font-size: 1.4rem; }
  main { max-width: 40rem; margin: 1.5rem auto; background: #fff; border-radius: 8px; padding: 1.5rem; border-top: 4px solid ${primary}; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .5rem 1.5rem; }
  dt { font-weight: 600; }
  dd { margin: 0; overflow-wrap: anywhere; }
  footer { max-width: 40rem; margin: 0 auto 2rem; padding: 0 1.5rem; }
  a { color: ${textOn(primary) === '#ffffff' ? primary : '#1b1b1b'}; }
  .progress { list-style: none; display: flex; padding: 0; margin: 1rem 0 1.5rem; counter-reset: step; }
  .progress li { flex: 1; text-align: center; font-size: .8rem; color: #6b6b6b; position: relative; padding-top: 1.6rem; }
  .progress li::before { content: ''; position: absolute; top: .35rem; left: 50%; width: .9rem; height: .9rem; margin-left: -.45rem; border-radius: 50%; background: #d6d6d6; z-index: 1; }
  .progress li::after { content: ''; position: absolute; top: .7rem; left: -50%; width: 100%; height: 3px; background: #d6d6d6; }
  .progress li:first-child::after { display: none; }
  .progress li.done { color: #1b1b1b; }
  .progress li.done::before, .progress li.done::after { background: var(--brand); }
  .progress li.current { font-weight: 700; }
  .progress.trouble li.current::before { background: #c0392b; }
  .history { list-style: none; padding: 0; margin: 1.5rem 0 0; border-left: 3px solid ${primary}; }
  .history li { padding: 0 0 1rem 1rem; display: grid; gap: .15rem; }
  .history time { font-size: .8rem; color: #6b6b6b; }
  .history .where, .history .what { font-size: .9rem; }
  @media (max-width: 42rem) {
    header { padding: 1rem; }
    main { margin: 1rem .75rem; padding: 1.25rem 1rem; }
    footer { padding: 0 1rem; }
    dl { grid-template-columns: 1fr; gap: .1rem; }
    dd + dt { margin-top: .5rem; }
    .progress li { font-size: .72rem; }
  }
</style>
</head>
<body>
<header>
  ${logo ? `<img src="${escapeHtml(logo)}" alt="${escapeHtml(name)} logo" referrerpolicy="no-referrer">` : ''}
  <h1 id="brand-name">${escapeHtml(name)}</h1>
</header>
<main>
  <h2 id="headline">${escapeHtml(HEADLINE[status ?? 'in_transit'])}</h2>
  ${progress(events, primary)}
  <dl>
    <dt>Carrier</dt><dd id="carrier">${escapeHtml(p.shipment.carrier)}</dd>
    <dt>Tracking number</dt><dd id="tracking-number">${escapeHtml(p.shipment.tracking_number)}</dd>
    <dt>Shipped on</dt><dd id="ship-date"><time datetime="${shipDate}">${shipDate}</time></dd>
    <dt>Destination</dt><dd id="destination">${escapeHtml(p.city)}, ${escapeHtml(countryName(p.countryCode))}</dd>
  </dl>
  <h3>History</h3>
  ${history(events, p.shipment.shipped_at)}
</main>
<footer>
  <h3>Questions about your order?</h3>
  <ul id="customer-service">${contact || '<li>Contact the shop you ordered from.</li>'}</ul>
</footer>
</body>
</html>
`;
}

/** Public pages: no API key; the URL's token is the only credential. */
export function trackingRoutes(app: FastifyInstance, s: { shipments: Pick<ShipmentsService, 'trackingPage'> }): void {
  app.get<{ Params: { token: string } }>(
    '/tracking/:token',
    { config: { access: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      reply
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-robots-tag', 'noindex');
      const page = await s.shipments.trackingPage(String(req.params.token));
      if (!page) {
        return reply
          .status(404)
          .type('text/html; charset=utf-8')
          .send(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><p>This tracking page does not exist.</p></body></html>',
          );
      }
      return reply
        .header(
          'content-security-policy',
          "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        )
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(renderTrackingPage(page));
    },
  );
}

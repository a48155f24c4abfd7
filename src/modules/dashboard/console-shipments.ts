import type { FastifyRequest } from 'fastify';
import { mustFind } from '../../platform/errors.ts';
import { ADDRESS_FIELDS } from '../../platform/http/schemas.ts';
import { value } from './forms.ts';
import { type Html, abbreviate, badge, buttonForm, field, fmtDate, form, html, shortRef, table } from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

const WHY: Record<string, string> = {
  refused: 'the carrier refused the parcel',
  returned: 'returned to sender',
  exception: 'delivery problem',
  lost: 'no scan for days',
};
const LABEL_STATE: Record<string, string> = {
  assigned: 'labelled outside the service',
  pending: 'being announced',
  announced: "carrier's label",
  refused: 'refused by the carrier',
};
const FIELD_LABEL: Record<string, string> = {
  company: 'Company',
  firstname: 'First name',
  lastname: 'Last name',
  streetname: 'Street',
  housenumber: 'House number',
  housenumberAddition: 'House number addition',
  additionalInfo: 'Address line 2',
  state: 'State or province',
  zipcode: 'Postcode',
  city: 'City',
  countryCode: 'Country code',
  phonenumber: 'Phone number',
  email: 'E-mail',
};
const tone = (status: string | null) =>
  status === 'delivered' ? 'ok' : status === 'exception' || status === 'returned' ? 'bad' : 'warn';

/** One shipment: carrier, label, failure, the address correction, tracking events and raw carrier statuses. */
function shipmentPageOf(r: DashRouter) {
  const { s } = r;
  return async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const ref = (req.params as { ref: string }).ref;
    const found = mustFind(await s.shipments.operatorShipment(ref), 'Shipment', ref);
    const { parcel, shipment, statuses, address } = found;
    const base = `/console/shipments/${parcel.id}`;
    const events = shipment.trackingEvents.map(
      (e) =>
        html`<tr><td>${fmtDate(e.occurred)}</td><td>${badge(e.status.replaceAll('_', ' '), tone(e.status))}</td><td>${e.location ?? ''}</td><td>${e.description ?? ''}</td></tr>`,
    );
    const carrierRows = statuses.map(
      (c) =>
        html`<tr><td>${fmtDate(c.occurredAt)}</td><td><code>${c.code}</code></td><td>${c.message ?? ''}</td><td>${c.mappedStatus ? c.mappedStatus.replaceAll('_', ' ') : html`<span class="help">kept, not a tracking event</span>`}</td></tr>`,
    );
    const entered = (f: string) => (opts.values ? value(opts.values, f) : undefined);
    const correction =
      parcel.labelState === 'refused' || parcel.returnedAt
        ? html`<section class="card" aria-labelledby="fix"><h2 id="fix">Correct the address</h2><p>${parcel.labelState === 'refused' ? 'The parcel is announced again with the corrected address.' : 'The parcel came back: a replacement decided on its package-missing claim goes to the corrected address.'} The country stays ${address.countryCode ?? ''}; the order keeps the address it was placed with.</p>
${form(
  `${base}/address`,
  ctx.page.csrf,
  html`<div class="filters">${ADDRESS_FIELDS.map((f) =>
    field({
      label: FIELD_LABEL[f] ?? f,
      name: f,
      value: entered(f) ?? address[f] ?? '',
      readonly: f === 'countryCode',
    }),
  )}</div><button type="submit" class="btn">${parcel.labelState === 'refused' ? 'Correct and announce again' : 'Correct the address'}</button>`,
  { label: 'Correct the address' },
)}
${parcel.labelState === 'refused' ? html`<p>${buttonForm(`${base}/announce`, ctx.page.csrf, 'Announce again unchanged')}</p>` : ''}</section>`
        : '';
    const failure = parcel.carrierError
      ? html`<section class="card alert-card" aria-labelledby="fail"><h2 id="fail">${parcel.labelState === 'refused' ? 'The carrier refused the parcel' : 'Last attempt to reach the carrier'}</h2><p>${parcel.carrierError}</p></section>`
      : '';
    const label = parcel.documents.label
      ? html`<a href="${base}/label.pdf">Carrier label (PDF, A6)</a>${parcel.documents.labelZpl ? html` · <a href="${base}/label.zpl">ZPL for thermal printers</a>` : ''}${parcel.documents.customsDeclaration ? html` · <a href="${base}/customs-declaration.pdf">Customs declaration (CN23, PDF): print and attach</a>` : ''}`
      : parcel.labelState === 'assigned'
        ? html`<span class="help">no label from the service: the carrier's own, or the sandbox</span>`
        : '';
    return page(
      ctx.page,
      `Shipment ${abbreviate(parcel.id)}`,
      html`<p>${shortRef(parcel.id)} · <a href="/console/shipments">All shipments that need attention</a></p>${failure}
<section class="card" aria-labelledby="facts"><h2 id="facts">Carrier and label</h2><dl class="facts">
<dt>Carrier</dt><dd>${parcel.carrier ?? '—'}</dd><dt>Tracking number</dt><dd>${parcel.trackingNumber ?? '—'}</dd>
<dt>Label</dt><dd>${badge(LABEL_STATE[parcel.labelState], parcel.labelState === 'refused' ? 'bad' : parcel.labelState === 'pending' ? 'warn' : 'ok')} ${label}</dd>
<dt>Labelled by</dt><dd>${parcel.carrierAdapter}${parcel.carrierParcelId ? html` · parcel ${parcel.carrierParcelId}` : ''}</dd>
<dt>Level</dt><dd>${parcel.level}</dd><dt>Shipped</dt><dd>${fmtDate(parcel.shippedAt)}</dd>
<dt>Delivered</dt><dd>${fmtDate(parcel.deliveredAt)}</dd>${parcel.returnedAt ? html`<dt>Returned</dt><dd>${fmtDate(parcel.returnedAt)}</dd>` : ''}
<dt>Needs attention</dt><dd>${parcel.attention ? html`${badge(parcel.attention, 'bad')} ${WHY[parcel.attention]} since ${fmtDate(parcel.attentionSince)}` : 'no'}</dd>
<dt>To</dt><dd>${[address.zipcode, address.city, address.countryCode].filter(Boolean).join(' ')}</dd>
<dt>Organization</dt><dd>${shortRef(parcel.organizationId)}</dd></dl></section>
${correction}
<section aria-labelledby="ev"><h2 id="ev">Tracking events</h2>${table(['When', 'Status', 'Where', 'What'], events, { caption: 'Tracking events, oldest first', empty: 'No tracking event yet.' })}</section>
<section aria-labelledby="cs"><h2 id="cs">Everything the carrier said</h2>${table(['When', 'Code', 'Message', 'Means'], carrierRows as Html[], { caption: 'Carrier statuses as received', empty: 'The carrier has sent no status for this parcel.' })}</section>`,
      { error: opts.error, notice: opts.notice },
    );
  };
}

/**
 * Operator console: the shipments that need attention (a carrier refusal, a return, a delivery
 * problem, a parcel gone quiet) and one shipment's carrier, label, tracking and failures, where a
 * refused address is corrected and the parcel announced again.
 */
export function consoleShipmentPages(r: DashRouter): void {
  const { s } = r;
  const refOf = (req: FastifyRequest) => (req.params as { ref: string }).ref;

  r.page('/console/shipments', 'operator', async (req, ctx) => {
    const wanted = value(req.query, 'ref')?.trim();
    const rows = await s.shipments.needingAttention();
    const list = rows.map(
      (x) =>
        html`<tr><td>${shortRef(x.id, { href: `/console/shipments/${x.id}` })}</td><td>${badge(x.attention ?? '', 'bad')} <span class="help">${WHY[x.attention ?? ''] ?? ''}</span></td><td>${fmtDate(x.attentionSince)}</td><td>${x.carrier ?? '—'} ${x.trackingNumber ?? ''}</td><td>${x.carrierError ?? ''}</td></tr>`,
    );
    return page(
      ctx.page,
      'Shipments',
      html`<form method="get" class="filters card" aria-label="Find a shipment">${field({ label: 'Shipment reference', name: 'ref', value: wanted ?? '', maxlength: 100 })}<button type="submit" class="btn secondary">Open</button></form>
${wanted ? html`<p>${shortRef(wanted, { href: `/console/shipments/${encodeURIComponent(wanted)}` })}</p>` : ''}
<h2>Needs attention</h2>
${table(['Shipment', 'Why', 'Since', 'Carrier', 'Carrier message'], list, { caption: 'Shipments that need attention, oldest first', empty: 'Nothing needs attention: no refused, returned, stuck or silent parcels.' })}`,
    );
  });

  const shipmentPage = shipmentPageOf(r);
  r.page('/console/shipments/:ref', 'operator', shipmentPage);

  // The carrier's documents: PDFs open in the browser to print, the ZPL downloads for the printer.
  for (const [file, kind] of [
    ['label.pdf', 'label'],
    ['label.zpl', 'label-zpl'],
    ['customs-declaration.pdf', 'customs-declaration'],
  ] as const)
    r.app.get(
      `/console/shipments/:ref/${file}`,
      { config: { access: 'public', dashboard: 'operator' } },
      async (req, reply) => {
        const doc = await s.shipments.announce.document(refOf(req), kind);
        const disposition = kind === 'label-zpl' ? 'attachment' : 'inline';
        return reply
          .type(doc.type)
          .header('content-disposition', `${disposition}; filename="${doc.filename}"`)
          .send(doc.bytes);
      },
    );

  r.action(
    '/console/shipments/:ref/address',
    'operator',
    async (req) => {
      const input: Record<string, string> = {};
      for (const f of ADDRESS_FIELDS) {
        const v = value(req.body, f)?.trim();
        if (v) input[f] = v;
      }
      const state = await s.shipments.announce.correctAddress(refOf(req), input);
      return {
        redirect: `/console/shipments/${refOf(req)}`,
        notice:
          state === 'pending'
            ? 'Address corrected; the parcel is being announced again.'
            : "Address corrected; a replacement on this shipment's claim goes there.",
      };
    },
    shipmentPage,
  );
  r.action(
    '/console/shipments/:ref/announce',
    'operator',
    async (req) => {
      await s.shipments.announce.retry(refOf(req));
      return { redirect: `/console/shipments/${refOf(req)}`, notice: 'The parcel is being announced again.' };
    },
    shipmentPage,
  );
}

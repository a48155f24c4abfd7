import type { FastifyRequest } from 'fastify';
import { value } from './forms.ts';
import { type Html, html, trusted } from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';
import { PICKING_PROBLEMS, QC_REASONS, REMAKE_REASONS } from '../production/stations.ts';
import type { PickingProblem, QcReason } from '../production/stations-repo.ts';
import type { PackProgress, ParcelCase } from '../production/pack.ts';
import { EU } from '../carriers/sendcloud/methods.ts';

export type Tone = 'ok' | 'warn' | 'error';
/** What the station says after a scan: a headline in large type, details, and its sound. */
export interface Outcome {
  tone: Tone;
  headline: string;
  detail?: Html | string;
}

/**
 * Station pages: the scan input keeps the focus (a keyboard-wedge scanner types the code and
 * Enter); with scripts on, a scan is sent without leaving the page, the answer replaces it and the
 * station beeps (one high tone: done; two low ones: refused). Without scripts the form posts as usual.
 */
export const STATION_JS = `(function(){var ctx;
function ac(){var A=window.AudioContext||window.webkitAudioContext;if(!ctx&&A)ctx=new A();if(ctx&&ctx.state==='suspended')ctx.resume();return ctx}
function beep(kind){var c=ac();if(!c)return;var t=kind==='error'?[[220,0,.2],[165,.26,.32]]:kind==='warn'?[[523,0,.14],[392,.18,.2]]:[[988,0,.12]];
t.forEach(function(x){var o=c.createOscillator(),g=c.createGain();o.type=kind==='error'?'square':'sine';o.frequency.value=x[0];g.gain.value=.25;o.connect(g);g.connect(c.destination);o.start(c.currentTime+x[1]);o.stop(c.currentTime+x[1]+x[2]);});}
function focus(){var i=document.querySelector('.station input[name=code]');if(i){i.focus();i.select();}}
function wire(){var f=document.querySelector('form.station-scan');if(!f)return;focus();var s=document.querySelector('[data-sound]');if(s)beep(s.getAttribute('data-sound'));
f.addEventListener('change',focus);
f.addEventListener('submit',function(e){e.preventDefault();ac();fetch(f.action,{method:'POST',body:new URLSearchParams(new FormData(f)),credentials:'same-origin',headers:{'content-type':'application/x-www-form-urlencoded'}})
.then(function(r){return r.text()}).then(function(h){var m=new DOMParser().parseFromString(h,'text/html').querySelector('main');if(!m){location.reload();return}document.querySelector('main').replaceWith(m);wire();})
.catch(function(){HTMLFormElement.prototype.submit.call(f)});});}
document.addEventListener('DOMContentLoaded',wire);
document.addEventListener('click',function(e){if(!e.target.closest('input,button,a,label,summary'))focus();});})();`;

const STYLE = trusted(`<style>
.station .next{font-size:clamp(1.6rem,5vw,2.6rem);font-weight:700;line-height:1.2;margin:.5rem 0 1rem}
.station .outcome{border-radius:12px;padding:1rem 1.25rem;margin:0 0 1rem;border:3px solid}
.station .outcome .headline{font-size:clamp(1.5rem,4.5vw,2.2rem);font-weight:800;line-height:1.2;margin:0 0 .25rem}
.station .outcome.ok{background:#e4f4e8;border-color:#146c2e;color:#0c3d1a}
.station .outcome.warn{background:#fff4ce;border-color:#8a5300;color:#3d2e00}
.station .outcome.error{background:#fde7e6;border-color:#b3261e;color:#5c100c}
.station input[name=code]{width:100%;font-size:1.6rem;padding:.8rem 1rem;border:3px solid #14213d;border-radius:10px;font-family:ui-monospace,monospace}
.station .choices{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0;border:0;padding:0}
.station .choices legend{font-weight:600;margin-bottom:.25rem}
.station .choices label{flex:1 1 10rem;display:flex;align-items:center;gap:.5rem;min-height:3.5rem;padding:.5rem 1rem;border:2px solid var(--line);border-radius:10px;background:#fff;font-size:1.2rem;font-weight:600;cursor:pointer}
.station .choices input{width:1.5rem;height:1.5rem}
.station .choices label:has(input:checked){border-color:#0b57d0;background:#e3ebfb}
.station button.scan{font-size:1.3rem;padding:.8rem 1.5rem;min-height:3.5rem;margin-top:.5rem}
.station ul.missing{font-size:1.15rem;padding-left:1.25rem}.station ul.missing li{margin:.25rem 0;overflow-wrap:anywhere}.station ul.missing li.here{list-style:none;margin-left:-1.25rem;color:#146c2e}.station .parcel-order{font-weight:700;margin:.75rem 0 .25rem;overflow-wrap:anywhere}
.station .stations-nav{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem;margin:0 0 .75rem}.station .stations-nav strong{padding:.45rem .7rem;border-radius:6px;background:#e3ebfb;color:#0b3a8c}
</style>`);

const STATIONS: Array<[string, string]> = [
  ['/console/production/stations/print', 'Print'],
  ['/console/production/stations/picking', 'Picking'],
  ['/console/production/stations/qc', 'QC'],
  ['/console/production/stations/pack', 'Pack'],
];

/**
 * What the pack station prints for a parcel the carrier labels (Sendcloud): the carrier's label
 * instead of the service's sheet, the packing slip, and for a parcel leaving the EU the customs
 * declaration to attach. Null for a parcel labelled otherwise (sandbox, manual).
 */
async function carrierPrints(r: DashRouter, ref: string): Promise<Html | null> {
  const found = await r.s.shipments.operatorShipment(ref);
  if (!found || (found.parcel.labelState !== 'pending' && found.parcel.labelState !== 'announced')) return null;
  const base = `/console/shipments/${ref}`;
  const customs = !EU.has(String(found.address.countryCode ?? ''));
  return html`<p><a href="${base}/label.pdf" target="_blank">Carrier label (A6)</a> · <a href="/console/production/shipments/${ref}/packing-slip" target="_blank">Packing slip</a>${customs ? html` · <a href="${base}/customs-declaration.pdf" target="_blank">Customs declaration (CN23): print and attach to the parcel</a>` : ''} (ready once the carrier answers: <a href="${base}">the shipment's page</a> shows it)</p>`;
}

export function stationPage(
  ctx: Ctx,
  o: {
    title: string;
    path: string;
    next: string;
    outcome: Outcome | null;
    choices: Html | '';
    button: string;
    /** The scan field's label and hint (default: a case's code). */
    label?: string;
    placeholder?: string;
    /** Shown under the scan form (the print station: the batches waiting). */
    after?: Html;
  },
): string {
  const out = o.outcome;
  return page(
    ctx.page,
    o.title,
    html`${STYLE}<div class="station">
<nav class="stations-nav" aria-label="Stations">${STATIONS.map(([href, label]) => (href === o.path ? html`<strong>${label}</strong>` : html`<a href="${href}">${label}</a>`))}<a href="/console/production">Production queue</a></nav>
${out ? html`<section class="outcome ${out.tone}" role="${out.tone === 'error' ? 'alert' : 'status'}" data-sound="${out.tone}"><p class="headline">${out.headline}</p>${out.detail ? html`<div class="detail">${out.detail}</div>` : ''}</section>` : ''}
<p class="next" aria-live="polite">${o.next}</p>
<form method="post" action="${o.path}" class="station-scan" aria-label="${o.title} scan"><input type="hidden" name="_csrf" value="${ctx.page.csrf}">
<label for="code">${o.label ?? 'Case code'}</label>
<input id="code" name="code" autocomplete="off" autocapitalize="none" spellcheck="false" autofocus required maxlength="100" placeholder="${o.placeholder ?? 'Scan the case’s barcode'}">
${o.choices}<button type="submit" class="scan">${o.button}</button></form>${o.after ?? ''}</div>
<script src="/console/production/stations/station.js" defer></script>`,
  );
}

const radios = (name: string, legend: string, options: Array<[string, string]>) =>
  html`<fieldset class="choices"><legend>${legend}</legend>${options.map(([v, label], i) => html`<label><input type="radio" name="${name}" value="${v}"${i === 0 ? html` checked` : ''}> ${label}</label>`)}</fieldset>`;

export const refusal = (opts: PageOptions): Outcome | null =>
  opts.error
    ? {
        tone: 'error',
        headline: 'Refused',
        detail: html`<p>${opts.error}</p><p>Put the case aside and scan the next.</p>`,
      }
    : null;

/** The floor's scan stations: picking problems, QC and packing, for a touch screen and a scanner. */
export function stationPages(r: DashRouter): void {
  r.app.get('/console/production/stations/station.js', { config: { access: 'public' } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(STATION_JS),
  );

  qcStation(r);
  pickingStation(r);
  packStation(r);
}

const code = (req: FastifyRequest) => value(req.body, 'code') ?? '';

function qcStation(r: DashRouter): void {
  const { s } = r;
  const qcPage = (ctx: Ctx, outcome: Outcome | null) =>
    stationPage(ctx, {
      title: 'QC station',
      path: '/console/production/stations/qc',
      next: outcome?.tone === 'error' ? 'Scan the next printed case' : 'Check the case, choose the verdict, scan it',
      outcome,
      choices: radios('verdict', 'Verdict', [
        ['pass', 'Pass'],
        ...QC_REASONS.map((q): [string, string] => [q, `Fail: ${REMAKE_REASONS[q].toLowerCase()}`]),
      ]),
      button: 'Record',
    });
  r.page('/console/production/stations/qc', 'operator', async (_req, ctx) => qcPage(ctx, null));
  r.action(
    '/console/production/stations/qc',
    'operator',
    async (req, ctx) => {
      const verdict = (value(req.body, 'verdict') ?? 'pass') as QcReason | 'pass';
      const res = await s.production.stations.qc(code(req), verdict);
      const what = html`<p><code>${res.unit}</code> · ${res.product} · line ${res.lineIndex} of ${res.order}</p>`;
      if (res.result === 'passed')
        return { html: qcPage(ctx, { tone: 'ok', headline: 'Passed: put it in the packing tray', detail: what }) };
      const remade = res.remake.taken
        ? 'A new blank was taken from stock; the case is queued for a later batch.'
        : `Held: ${res.remake.message}.`;
      return {
        html: qcPage(ctx, {
          tone: 'warn',
          headline: `Failed (${REMAKE_REASONS[verdict as QcReason].toLowerCase()}): put it in the scrap bin`,
          detail: html`${what}<p>${remade} The factory bears the cost.</p>`,
        }),
      };
    },
    async (_req, ctx, opts) => qcPage(ctx, refusal(opts)),
  );
}

function pickingStation(r: DashRouter): void {
  const { s } = r;
  const pickingPage = (ctx: Ctx, outcome: Outcome | null) =>
    stationPage(ctx, {
      title: 'Picking: blank problems',
      path: '/console/production/stations/picking',
      next: 'A blank damaged or missing? Choose which, scan its slot’s case code',
      outcome,
      choices: radios(
        'problem',
        'Problem',
        PICKING_PROBLEMS.map((p): [PickingProblem, string] => [p, REMAKE_REASONS[p]]),
      ),
      button: 'Report',
    });
  r.page('/console/production/stations/picking', 'operator', async (_req, ctx) => pickingPage(ctx, null));
  r.action(
    '/console/production/stations/picking',
    'operator',
    async (req, ctx) => {
      const res = await s.production.stations.pickingProblem(
        code(req),
        (value(req.body, 'problem') ?? '') as PickingProblem,
      );
      const what = html`<p><code>${res.unit}</code> · ${res.product} · ${res.order}</p>`;
      return {
        html: pickingPage(
          ctx,
          res.replaced
            ? {
                tone: 'ok',
                headline: 'Take a new blank from the bin for this slot',
                detail: html`${what}<p>The stock movement names the reason.</p>`,
              }
            : {
                tone: 'warn',
                headline: 'Held: leave the slot empty',
                detail: html`${what}<p>${res.message}. It is batched again once a blank is on the shelf.</p>`,
              },
        ),
      };
    },
    async (_req, ctx, opts) => pickingPage(ctx, refusal(opts)),
  );
}

/** Every case of the parcel by order: the missing ones with where each is, the packed ones ticked. */
function parcelCases(p: PackProgress): Html {
  const byOrder = p.orders.map((o) => [o, p.cases.filter((c) => c.orderReference === o)] as const);
  const item = (c: ParcelCase) =>
    c.packed
      ? html`<li class="here">✓ line ${c.lineIndex}, case ${c.unitNo} · ${c.product} · <code>${c.unit}</code>: on the table</li>`
      : html`<li>line ${c.lineIndex}, case ${c.unitNo} · ${c.product} · <code>${c.unit}</code>: ${c.why}</li>`;
  if (!p.parcel) return html`<ul class="missing">${p.cases.filter((c) => !c.packed).map(item)}</ul>`;
  return html`${byOrder
    .filter(([, cases]) => cases.length > 0)
    .map(
      ([o, cases]) =>
        html`<p class="parcel-order">${o}: ${cases.filter((c) => c.packed).length} of ${cases.length} here</p><ul class="missing">${cases.map(item)}</ul>`,
    )}`;
}

function packStation(r: DashRouter): void {
  const { s } = r;
  const packPage = (ctx: Ctx, outcome: Outcome | null, next = 'Scan a case that passed QC') =>
    stationPage(ctx, {
      title: 'Pack station',
      path: '/console/production/stations/pack',
      next,
      outcome,
      choices: '',
      button: 'Pack',
    });
  r.page('/console/production/stations/pack', 'operator', async (_req, ctx) => packPage(ctx, null));
  r.action(
    '/console/production/stations/pack',
    'operator',
    async (req, ctx) => {
      const res = await s.production.stations.pack(code(req));
      const p = res.progress;
      const shelf = p.fromShelf.length
        ? html`<p>Add from the shelf:</p><ul class="missing">${p.fromShelf.map((l) => html`<li>${l.quantity} × ${l.product} (${l.sku})${p.parcel ? html` · ${l.orderReference}` : ''}</li>`)}</ul>`
        : '';
      const what = p.parcel
        ? html`combined parcel <code>${p.parcel}</code> (${p.orders.length} ${p.orders.length === 1 ? 'order' : 'orders'})`
        : html`${p.orderReference}`;
      if (res.shipError) {
        return {
          html: packPage(ctx, {
            tone: 'error',
            headline: 'Every case is here, but the parcel did not ship',
            detail: html`<p>${what}: ${res.shipError}</p><p>Ship it from the <a href="/console/production#${p.orderReference}">production queue</a> (Ready to ship), or scan one of its cases again.</p>${shelf}`,
          }),
        };
      }
      if (!res.shipment) {
        return {
          html: packPage(
            ctx,
            {
              tone: 'warn',
              headline: `${p.packed} of ${p.cases.length} cases here: keep the parcel open`,
              detail: html`<p>Still missing for ${what}:</p>${parcelCases(p)}${shelf}`,
            },
            'Scan the next case of this parcel',
          ),
        };
      }
      s.worker?.nudge();
      const doc = (slug: string, label: string) =>
        html`<a href="/console/production/shipments/${res.shipment}/${slug}" target="_blank">${label}</a>`;
      return {
        html: packPage(ctx, {
          tone: 'ok',
          headline: `Parcel complete: print the label and the packing slip`,
          detail: html`<p>${what} shipped as <code>${res.shipment}</code>${p.parcel ? html`: ${p.orders.join(', ')}` : ''}.</p>${shelf}${(await carrierPrints(r, res.shipment)) ?? html`<p>${doc('shipping-label', 'Shipping label')} · ${doc('packing-slip', 'Packing slip')} (ready in a moment)</p>`}`,
        }),
      };
    },
    async (_req, ctx, opts) => packPage(ctx, refusal(opts)),
  );
}

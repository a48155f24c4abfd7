import { type Series, gauge, stackedBars } from './charts.ts';
import { type Html, badge, fmtDate, html, table } from './html.ts';
import { page } from './layout.ts';
import type { DashRouter } from './router.ts';
import type { ProductionService } from '../production/service.ts';

type Overview = Awaited<ReturnType<ProductionService['overview']>>;

const QC_SERIES: Series[] = [
  { key: 'passed', label: 'passed QC', colour: '#146c2e' },
  { key: 'misprint', label: 'failed: misprint', colour: '#b3261e' },
  { key: 'damaged_blank', label: 'failed: damaged blank', colour: '#c46a00' },
];
const SHIP_SERIES: Series[] = [
  { key: 'printed', label: 'cases printed', colour: '#0b57d0' },
  { key: 'shipped', label: 'parcels shipped', colour: '#3b1f4a' },
];

const pct = (r: number) => `${(r * 100).toFixed(1)} %`;

function todayCards(o: Overview): Html {
  const t = o.today;
  const failed = t.failed.misprint + t.failed.damaged_blank;
  const cards: Array<[string, number]> = [
    ['Cases printed', t.printed],
    ['Passed QC', t.passed],
    ['Failed QC', failed],
    ['Cases packed', t.packed],
    ['Parcels shipped', t.shipped],
  ];
  return html`<ul class="floor-today">${cards.map(([label, n]) => html`<li><span class="n">${n}</span> ${label}</li>`)}</ul>`;
}

/** An order count as a bar against the largest stage: a share, never a limit (no warning colours). */
const shareBar = (title: string, n: number, max: number) =>
  html`<svg viewBox="0 0 300 24" role="img" aria-label="${title}: ${n}" class="gauge" preserveAspectRatio="none"><rect x="0" y="4" width="300" height="16" rx="8" fill="#e6e9ed"/><rect x="0" y="4" width="${((300 * n) / max).toFixed(1)}" height="16" rx="8" fill="#0b57d0"/></svg>`;

function stageTable(o: Overview): Html {
  const max = Math.max(1, ...o.stages.map((s) => s.orders));
  return table(
    ['Stage', 'Orders', ''],
    o.stages.map(
      (s) => html`<tr><td>${s.label}</td><td>${s.orders}</td><td>${shareBar(s.label, s.orders, max)}</td></tr>`,
    ),
    {
      caption: `Open orders by stage (an order is as far as its least advanced case); ${o.preorders} pre-order(s) wait for launch`,
    },
  );
}

function lateTable(o: Overview): Html {
  const label = new Map<string, string>(o.stages.map((s) => [s.stage, s.label]));
  return table(
    ['Order', 'Organization', 'Placed', 'Due', 'Stage'],
    o.late.map(
      (l) =>
        html`<tr><td><a href="/console/production#${l.reference}" class="ref">${l.reference}</a></td><td>${l.organizationName}</td><td>${fmtDate(l.placed)}</td><td>${fmtDate(l.due)} ${badge(l.daysLate > 0 ? `${l.daysLate} day(s) late` : 'late', 'bad')}</td><td>${label.get(l.stage) ?? l.stage}</td></tr>`,
    ),
    { caption: `Oldest first: not shipped within ${o.promiseDays} working day(s)`, empty: 'No order is late.' },
  );
}

function remakeTable(o: Overview): Html {
  return table(
    ['Reason', 'Cases', 'Rate', ''],
    o.remakes.map(
      (r) =>
        html`<tr><td>${r.label}</td><td>${r.count}</td><td>${pct(r.rate)}<span class="help"> of ${r.of} ${r.atPicking ? 'cases picked' : 'cases checked'}</span></td><td>${gauge({ title: `${r.label}: ${pct(r.rate)}`, used: r.count, limit: Math.max(r.of, 1) })}</td></tr>`,
    ),
    { caption: `Made again at the factory's cost, last ${o.days.length} days` },
  );
}

/** The floor at a glance: orders by stage, late orders, today's throughput, remakes by reason. */
export function productionOverviewPage(r: DashRouter): void {
  r.page('/console/production/overview', 'operator', async (_req, ctx) => {
    const o = await r.s.production.overview();
    const days = o.days.map((d) => d.day);
    const qc = new Map(o.days.map((d) => [d.day, { passed: d.passed, ...d.failed }]));
    const ship = new Map(o.days.map((d) => [d.day, d]));
    return page(
      ctx.page,
      'Production overview',
      html`<style>.floor-today{list-style:none;display:flex;flex-wrap:wrap;gap:.75rem;padding:0;margin:0}.floor-today li{flex:1 1 9rem;background:#fff;border:1px solid var(--line);border-radius:10px;padding:.6rem .9rem}.floor-today .n{display:block;font-size:2rem;font-weight:700}</style>
<p>Days are the factory’s (${o.timeZone}). Stations: <a href="/console/production/stations/picking">Picking</a> · <a href="/console/production/stations/qc">QC</a> · <a href="/console/production/stations/pack">Pack</a> · <a href="/console/production">Production queue</a></p>
<section class="card" aria-labelledby="today"><h2 id="today">Today</h2>${todayCards(o)}</section>
<section class="card" aria-labelledby="stages"><h2 id="stages">Orders by stage</h2>${stageTable(o)}</section>
<section class="card" aria-labelledby="late"><h2 id="late">Late orders (${o.late.length})</h2>${lateTable(o)}</section>
<section class="card" aria-labelledby="qcd"><h2 id="qcd">Cases through QC per day</h2>${stackedBars({ id: 'qcd', title: `Cases through QC per day over the last ${days.length} days, passed and failed by reason`, days, series: QC_SERIES, values: (d, k) => (qc.get(d) as Record<string, number> | undefined)?.[k] ?? 0, empty: 'No case went through QC in these days.' })}</section>
<section class="card" aria-labelledby="thr"><h2 id="thr">Printed and shipped per day</h2>${stackedBars({ id: 'thr', title: `Cases printed and parcels shipped per day over the last ${days.length} days`, days, series: SHIP_SERIES, values: (d, k) => Number(ship.get(d)?.[k as 'printed' | 'shipped'] ?? 0), empty: 'Nothing printed or shipped in these days.' })}</section>
<section class="card" aria-labelledby="rm"><h2 id="rm">Remake rate by reason</h2>${remakeTable(o)}</section>`,
    );
  });
}

import { type Html, html } from './html.ts';

export interface Series {
  key: string;
  label: string;
  colour: string;
}

/**
 * Stacked bars drawn on the server as SVG: nothing to load, nothing leaves the service. The bars
 * carry <title>s for a pointer, and a table with the same numbers follows for screen readers.
 */
export function stackedBars(o: {
  id: string;
  title: string;
  days: string[];
  series: Series[];
  values: (day: string, key: string) => number;
  empty: string;
  /** A dashed line the bars are measured against (a weekly limit). */
  limit?: { value: number; label: string };
}): Html {
  const totals = o.days.map((d) => o.series.reduce((n, s) => n + o.values(d, s.key), 0));
  const max = Math.max(0, ...totals, o.limit?.value ?? 0);
  if (Math.max(0, ...totals) === 0) return html`<p class="empty">${o.empty}</p>`;
  const W = 600;
  const H = 180;
  const top = 10;
  const left = 28;
  const plot = H - top - 20;
  const step = (W - left) / o.days.length;
  const bar = Math.max(2, step * 0.7);
  const scale = niceMax(max);
  const y = (v: number) => top + plot - (v / scale) * plot;
  const bars = o.days.map((d, i) => {
    let acc = 0;
    const x = left + i * step + (step - bar) / 2;
    return o.series.map((s) => {
      const v = o.values(d, s.key);
      if (!v) return '';
      const y0 = y(acc);
      acc += v;
      return html`<rect x="${x.toFixed(1)}" y="${y(acc).toFixed(1)}" width="${bar.toFixed(1)}" height="${(y0 - y(acc)).toFixed(1)}" fill="${s.colour}"><title>${d}: ${v} ${s.label}</title></rect>`;
    });
  });
  const ticks = [0, scale / 2, scale].map(
    (v) =>
      html`<line x1="${left}" x2="${W}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#d4d8de"/><text x="${left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="10" fill="#4d5560">${String(Math.round(v))}</text>`,
  );
  const labels = [0, Math.floor(o.days.length / 2), o.days.length - 1].map(
    (i, j) =>
      html`<text x="${(left + i * step + step / 2).toFixed(1)}" y="${H - 4}" text-anchor="${['start', 'middle', 'end'][j]}" font-size="10" fill="#4d5560">${o.days[i].slice(5)}</text>`,
  );
  const limit = o.limit
    ? html`<line x1="${left}" x2="${W}" y1="${y(o.limit.value).toFixed(1)}" y2="${y(o.limit.value).toFixed(1)}" stroke="#b3261e" stroke-width="2" stroke-dasharray="6 4"/><text x="${W - 2}" y="${(y(o.limit.value) + 12).toFixed(1)}" text-anchor="end" font-size="10" fill="#b3261e">${o.limit.label}</text>`
    : '';
  return html`<figure class="chart"><svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${o.id}-t" class="bars"><title id="${o.id}-t">${o.title}</title>${ticks}${bars}${limit}${labels}</svg>
<figcaption class="legend">${o.series.map((s) => html`<span><span class="swatch" style="background:${s.colour}"></span> ${s.label}</span>`)}</figcaption>
<details><summary>The numbers</summary><div class="table-wrap" role="region" aria-label="${o.title}" tabindex="0"><table><thead><tr><th scope="col">Day</th>${o.series.map((s) => html`<th scope="col">${s.label}</th>`)}</tr></thead><tbody>${o.days
    .filter((_, i) => totals[i] > 0)
    .map(
      (d) => html`<tr><th scope="row">${d}</th>${o.series.map((s) => html`<td>${o.values(d, s.key)}</td>`)}</tr>`,
    )}</tbody></table></div></details></figure>`;
}

/** A horizontal gauge of `used` against `limit`, red when over 90 %. */
export function gauge(o: { title: string; used: number; limit: number }): Html {
  const share = o.limit > 0 ? Math.min(1, o.used / o.limit) : o.used > 0 ? 1 : 0;
  const colour = share >= 0.9 ? '#b3261e' : share >= 0.7 ? '#8a5300' : '#0b57d0';
  return html`<svg viewBox="0 0 300 24" role="img" aria-label="${o.title}: ${o.used} of ${o.limit}" class="gauge" preserveAspectRatio="none"><rect x="0" y="4" width="300" height="16" rx="8" fill="#e6e9ed"/><rect x="0" y="4" width="${(300 * share).toFixed(1)}" height="16" rx="8" fill="${colour}"/></svg>`;
}

function niceMax(v: number): number {
  if (v <= 4) return 4;
  const mag = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= v) return m * mag;
  return 10 * mag;
}

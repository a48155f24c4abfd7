import type { DashboardServices } from './router.ts';
import { type Html, badge, fmtDate, html } from './html.ts';

export type EndpointHealth = Awaited<ReturnType<typeof endpointHealth>>;

/** Each endpoint's deliveries of the last 24 hours, by its reference. */
export async function endpointHealth(s: DashboardServices, orgId: string) {
  const rows = await s.webhooks.endpointHealth(orgId, new Date(s.clock.now().getTime() - 86400_000));
  return new Map(rows.map((r) => [r.reference, r]));
}

/** Red when failing or disabled (with since when and the last error), green with its success rate otherwise. */
export function healthOf(health: EndpointHealth, id: string, enabled: boolean, disabledReason: string | null): Html {
  const h = health.get(id);
  const done = (h?.succeeded ?? 0) + (h?.failed ?? 0);
  const rate = done
    ? html`<br><span class="help">${Math.round((100 * (h?.succeeded ?? 0)) / done)} % of ${done} deliveries succeeded</span>`
    : html`<br><span class="help">no finished deliveries</span>`;
  const error = h?.lastError ? html`<br><span class="help">last error: ${h.lastError.slice(0, 200)}</span>` : '';
  if (!enabled)
    return html`${badge('disabled', 'bad')}${disabledReason ? html`<br><span class="help">${disabledReason}</span>` : ''}${rate}${error}`;
  if (h?.failingSince) return html`${badge(`failing since ${fmtDate(h.failingSince)}`, 'bad')}${rate}${error}`;
  return html`${badge('healthy', 'ok')}${rate}`;
}

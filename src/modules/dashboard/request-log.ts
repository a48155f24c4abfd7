import type { FastifyRequest } from 'fastify';
import { mustFind } from '../../platform/errors.ts';
import { type LoggedRequest, isRequestSeq } from '../requestlog/recorder.ts';
import { type Html, badge, field, fmtDate, html, select, shortRef, table } from './html.ts';
import { page } from './layout.ts';
import type { DashRouter } from './router.ts';

const PAGE_SIZE = 50;
const CLASSES = [
  { value: '', label: 'any status' },
  { value: '2', label: '2xx succeeded' },
  { value: '4', label: '4xx refused' },
  { value: '5', label: '5xx failed' },
];

const statusBadge = (status: number) => badge(String(status), status >= 500 ? 'bad' : status >= 400 ? 'warn' : 'ok');
/** Search boxes take any text: it is cut to a sane length and only ever used as a bound value. */
const text = (v: string | undefined, max: number) => (typeof v === 'string' ? v.trim().slice(0, max) : '');

function json(v: unknown): Html {
  if (v === null || v === undefined) return html`<p class="empty">No body.</p>`;
  return html`<pre class="json" tabindex="0">${JSON.stringify(v, null, 2)}</pre>`;
}

/** What is known of one request; bodies only for errors, and redacted before they were stored. */
function requestDetail(row: LoggedRequest, extra: Html = html``): Html {
  return html`<dl class="facts"><dt>Request id</dt><dd>${shortRef(row.requestId)}</dd>
${extra}<dt>Time</dt><dd>${fmtDate(row.created)}</dd><dt>Request</dt><dd><code>${row.method} ${row.path}</code></dd>
<dt>Status</dt><dd>${statusBadge(row.status)}${row.errorCode ? html` <code>${row.errorCode}</code>` : ''}</dd><dt>Latency</dt><dd>${row.latencyMs} ms</dd>
<dt>API key</dt><dd>${row.keyName ? html`${row.keyName} <code>${row.keyHint}</code>` : '—'}</dd></dl>
${
  row.status >= 400
    ? html`<h2>Request body</h2>${json(row.requestBody)}<h2>Response</h2>${json(row.responseBody)}
<p class="help">Secrets, addresses and e-mail addresses are replaced by [redacted] before a request is stored.</p>`
    : html`<p class="help">Bodies are kept for errors only.</p>`
}`;
}

/** The partner's request log (Stripe's Workbench is the model) and the operator's support lookup. */
export function requestLogPages(r: DashRouter): void {
  const { s } = r;
  const q = (req: FastifyRequest) => (req.query ?? {}) as Record<string, string | undefined>;
  const days = s.config.requestLogRetentionDays;

  r.page('/dashboard/requests', 'partner', async (req, ctx) => {
    const query = q(req);
    const { apiKeys } = await s.organization.listApiKeys(ctx.orgId, { limit: 100 });
    const statusClass = ['2', '4', '5'].includes(query.status ?? '') ? Number(query.status) : undefined;
    const path = text(query.path, 200);
    const requestId = text(query.requestId, 128);
    const keyId = apiKeys.some((k) => k.reference === query.key) ? query.key : undefined;
    const before = query.before && isRequestSeq(query.before) ? query.before : undefined;
    const {
      requests: rows,
      next,
      searchedTo,
    } = await s.requestLog.requests(ctx.orgId, {
      statusClass,
      path: path || undefined,
      keyId,
      requestId: requestId || undefined,
      beforeSeq: before,
      limit: PAGE_SIZE,
    });
    const keep = new URLSearchParams(
      Object.entries({ status: query.status, path, key: keyId, requestId }).filter(([, v]) => v) as Array<
        [string, string]
      >,
    );
    if (next) keep.set('before', next);
    const filtered = statusClass || path || keyId || requestId;
    return page(
      ctx.page,
      'Request log',
      html`<p>Every API request of your organization from the last ${days} days, newest first. Requests appear here within a few seconds.</p>
<form method="get" class="filters card" aria-label="Filter requests">
${select({ label: 'Status', name: 'status', value: statusClass ? String(statusClass) : '', options: CLASSES })}
${field({ label: 'Path contains', name: 'path', type: 'search', value: path, maxlength: 200 })}
${select({ label: 'API key', name: 'key', value: keyId ?? '', options: [{ value: '', label: 'any key' }, ...apiKeys.map((k) => ({ value: k.reference, label: `${k.name} (${k.hint})` }))] })}
${field({ label: 'Request id', name: 'requestId', type: 'search', value: requestId, maxlength: 128 })}
<button type="submit" class="btn secondary">Search</button></form>
${table(
  ['Time', 'Request', 'Status', 'Latency', 'Key', 'Request id'],
  rows.map(
    (x) => html`<tr><td>${fmtDate(x.created)}</td><td><code>${x.method}</code> <span class="ref">${x.path}</span></td>
<td>${statusBadge(x.status)}${x.errorCode ? html`<br><code>${x.errorCode}</code>` : ''}</td><td>${x.latencyMs} ms</td><td>${x.keyHint ? html`<code>${x.keyHint}</code>` : '—'}</td>
<td>${shortRef(x.requestId, { href: `/dashboard/requests/${x.seq}` })}</td></tr>`,
  ),
  {
    caption: 'Requests, newest first',
    empty: filtered
      ? 'No request matches. Clear a filter, or check the request id you were given (it is in the X-Request-Id response header).'
      : 'No requests yet. Call the API with one of your keys (for example GET /v2/stores) and it appears here.',
  },
)}
${
  !next
    ? ''
    : rows.length === PAGE_SIZE
      ? html`<p><a href="/dashboard/requests?${keep.toString()}">Older requests</a></p>`
      : html`<p>Searched back to ${fmtDate(searchedTo ?? new Date())}. <a href="/dashboard/requests?${keep.toString()}">Search older requests</a></p>`
}`,
    );
  });

  r.page('/dashboard/requests/:seq', 'partner', async (req, ctx) => {
    const row = mustFind(await s.requestLog.request(ctx.orgId, (req.params as { seq: string }).seq), 'Request');
    return page(
      ctx.page,
      `${row.method} ${row.path}`,
      html`<p><a href="/dashboard/requests">All requests</a></p>${requestDetail(row)}`,
    );
  });

  r.page('/console/requests', 'operator', async (req, ctx) => {
    const requestId = text(q(req).requestId, 128);
    const rows = requestId ? await s.requestLog.requestsWithId(requestId) : [];
    return page(
      ctx.page,
      'Support lookup',
      html`<p>Paste the request id a partner quoted (the <code>requestId</code> of an error, or the X-Request-Id header) to see the request, its organization and its error.</p>
<form method="get" class="filters card" aria-label="Find a request">${field({ label: 'Request id', name: 'requestId', type: 'search', value: requestId, maxlength: 128, required: true })}<button type="submit" class="btn secondary">Find</button></form>
${
  !requestId
    ? ''
    : rows.length === 0
      ? html`<p class="empty">No request with this id in the last ${days} days. Check for a typo; ids are kept ${days} days.</p>`
      : rows.map(
          (row) =>
            html`<section class="card">${requestDetail(row, html`<dt>Organization</dt><dd><a href="/console/organizations/${row.organizationReference}">${row.organizationName ?? row.organizationReference}</a></dd>`)}</section>`,
        )
}`,
    );
  });
}

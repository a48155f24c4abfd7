import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../platform/errors.ts';
import { SUBSCRIBABLE_TYPES } from '../webhooks/schemas.ts';
import { required, text, value, values } from './forms.ts';
import {
  type Html,
  badge,
  buttonForm,
  checkbox,
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
import { endpointHealth, healthOf } from './webhook-health.ts';
import type { Ctx, DashRouter, DashboardServices, PageFn, PageOptions } from './router.ts';

const ALL = { limit: 100 };

const secretBox = (
  id: string,
  secret: string,
  what: string,
) => html`<div class="card"><p><strong>Copy the ${what} now.</strong> It is shown only this once; the service keeps only what it needs to check it.</p>
<div class="secret"><code id="${id}">${secret}</code><button type="button" class="btn secondary" data-copy="${id}">Copy</button></div></div>`;

function eventTypeBoxes(chosen: string[]): Html {
  return html`<fieldset><legend>Events to deliver</legend>${SUBSCRIBABLE_TYPES.map((t) => checkbox({ label: t, name: 'eventTypes', value: t, checked: chosen.includes(t) }))}</fieldset>`;
}

function endpointInput(body: unknown) {
  const eventTypes = values(body, 'eventTypes');
  if (eventTypes.length === 0) throw badRequest('Choose at least one event type');
  const unknown = eventTypes.find((t) => !(SUBSCRIBABLE_TYPES as readonly string[]).includes(t));
  if (unknown) throw badRequest(`Unknown event type ${unknown}`);
  return {
    url: required(body, 'url', 'Endpoint URL', 2000),
    eventTypes,
    description: text(body, 'description', 'Description', { max: 500 }),
  };
}

const refParam = (req: FastifyRequest) => (req.params as { ref: string }).ref;

/** The partner's API keys, webhook endpoints with their deliveries, and events. */
export function partnerIntegrationPages(r: DashRouter): void {
  apiKeyPages(r);
  endpointListPages(r);
  endpointPages(r);
  deliveryPages(r);
  eventsPage(r);
}

/** The API keys, creating one (its secret shown once) and revoking one. */
function apiKeyPages(r: DashRouter): void {
  const o = r.s.organization;
  const keysPage = async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const { apiKeys } = await o.listApiKeys(ctx.orgId, ALL);
    return page(
      ctx.page,
      'API keys',
      html`<p>Send a key in the <code>X-Service-Secret-Key</code> header. A read-only key can read everything but change nothing.</p>
${table(
  ['Name', 'Reference', 'Key starts with', 'Access', 'Created', 'Last used', 'Status', ''],
  apiKeys.map(
    (k) => html`<tr>
<td>${k.name}</td><td>${shortRef(k.reference)}</td><td><code>${k.hint}</code></td><td>${k.readOnly ? 'read-only' : 'full'}</td><td>${fmtDate(k.created)}</td><td>${fmtDate(k.lastUsed)}</td>
<td>${k.revoked ? badge('revoked', 'bad') : badge('active', 'ok')}</td>
<td>${k.revoked ? '' : buttonForm(`/dashboard/api-keys/${k.reference}/revoke`, ctx.page.csrf, 'Revoke', { danger: true, confirm: `Revoke ${k.name}? Requests with it are refused at once.` })}</td></tr>`,
  ),
  { caption: 'API keys', empty: 'No API keys yet. Create one below to call the API.' },
)}
<section class="card" aria-labelledby="new-key"><h2 id="new-key">Create an API key</h2>
${form(
  '/dashboard/api-keys',
  ctx.page.csrf,
  html`${field({ label: 'Name', name: 'name', required: true, maxlength: 200, help: 'What uses the key, e.g. "shop backend".', value: opts.values ? value(opts.values, 'name') : '' })}
${select({
  label: 'Access',
  name: 'access',
  value: opts.values ? value(opts.values, 'access') : 'full',
  options: [
    { value: 'full', label: 'Full access' },
    { value: 'read_only', label: 'Read-only' },
  ],
})}
<button type="submit">Create key</button>`,
  { label: 'Create an API key' },
)}</section>`,
      { error: opts.error },
    );
  };
  r.page('/dashboard/api-keys', 'partner', keysPage);
  r.action(
    '/dashboard/api-keys',
    'partner',
    async (req, ctx) => {
      const access = value(req.body, 'access') ?? 'full';
      if (access !== 'full' && access !== 'read_only') throw badRequest('Access must be full or read-only');
      const { apiKey } = await o.createApiKey(ctx.orgId, {
        name: required(req.body, 'name', 'Name'),
        readOnly: access === 'read_only',
      });
      return {
        html: page(
          ctx.page,
          'API key created',
          html`<p>Key <strong>${apiKey.name}</strong> (<code>${apiKey.reference}</code>, ${apiKey.readOnly ? 'read-only' : 'full access'}).</p>
${secretBox('api-key-secret', apiKey.secret, 'secret key')}<p><a href="/dashboard/api-keys">Back to API keys</a></p>`,
        ),
      };
    },
    keysPage,
  );
  r.action(
    '/dashboard/api-keys/:ref/revoke',
    'partner',
    async (req, ctx) => {
      const k = await o.revokeApiKey(ctx.orgId, refParam(req));
      return {
        redirect: '/dashboard/api-keys',
        notice: `Key ${k.name} revoked; requests with it are refused from now on.`,
      };
    },
    keysPage,
  );
}

/** The webhook endpoints with their health, and adding one (its signing secret shown once). */
function endpointListPages(r: DashRouter): void {
  const { s } = r;
  const w = s.webhooks;
  const endpointsPage = async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const { webhookEndpoints } = await w.listEndpoints(ctx.orgId, ALL);
    const health = await endpointHealth(s, ctx.orgId);
    return page(
      ctx.page,
      'Webhooks',
      html`<p>Events are POSTed to your endpoints, signed with the Standard Webhooks scheme. See also the <a href="/dashboard/webhooks/deliveries">delivery log</a> and the <a href="/dashboard/events">events list</a>.</p>
${table(
  ['URL', 'Events', 'Health (24 h)', 'Created'],
  webhookEndpoints.map(
    (
      e,
    ) => html`<tr><td class="ref"><a href="/dashboard/webhooks/${e.reference}">${e.url}</a>${e.description ? html`<br><span class="help">${e.description}</span>` : ''}</td>
<td>${e.eventTypes.join(', ')}</td><td>${healthOf(health, e.reference, e.enabled, e.disabledReason)}</td><td>${fmtDate(e.created)}</td></tr>`,
  ),
  { caption: 'Webhook endpoints', empty: 'No webhook endpoints yet. Add one below to hear about every order change.' },
)}
<section class="card" aria-labelledby="new-endpoint"><h2 id="new-endpoint">Add an endpoint</h2>
${form(
  '/dashboard/webhooks',
  ctx.page.csrf,
  html`${field({ label: 'Endpoint URL', name: 'url', type: 'url', required: true, maxlength: 2000, value: opts.values ? value(opts.values, 'url') : '' })}
${field({ label: 'Description', name: 'description', maxlength: 500, value: opts.values ? value(opts.values, 'description') : '' })}
${eventTypeBoxes(opts.values ? values(opts.values, 'eventTypes') : [...SUBSCRIBABLE_TYPES])}<button type="submit">Add endpoint</button>`,
  { label: 'Add a webhook endpoint' },
)}</section>`,
      { error: opts.error },
    );
  };
  r.page('/dashboard/webhooks', 'partner', endpointsPage);
  r.action(
    '/dashboard/webhooks',
    'partner',
    async (req, ctx) => {
      const e = await w.createEndpoint(ctx.orgId, endpointInput(req.body));
      return {
        html: page(
          ctx.page,
          'Webhook endpoint added',
          html`<p>Endpoint <a href="/dashboard/webhooks/${e.reference}">${e.url}</a> receives ${e.eventTypes.join(', ')}.</p>${secretBox('webhook-secret', e.secret, 'signing secret')}<p><a href="/dashboard/webhooks/${e.reference}">Go to the endpoint</a></p>`,
        ),
      };
    },
    endpointsPage,
  );
}

const deliveryRows = (
  ctx: Ctx,
  list: Awaited<ReturnType<DashboardServices['webhooks']['listDeliveries']>>['webhookDeliveries'],
  urls: Map<string, string>,
) =>
  list.map(
    (
      d,
    ) => html`<tr><td>${shortRef(d.reference)}${d.resendOf ? html`<br><span class="help">resend of ${shortRef(d.resendOf)}</span>` : ''}</td><td>${d.eventType}<br><span class="help">${shortRef(d.eventReference)}</span></td>
<td class="ref">${urls.get(d.endpointReference) ?? d.endpointReference}</td><td>${badge(d.status, statusTone(d.status))}</td>
<td>${d.attempts.length ? html`<ol>${d.attempts.map((a) => html`<li>${fmtDate(a.at)}: ${a.responseStatus ?? 'no response'} (${a.durationMs} ms)${a.error ? html` – ${a.error}` : ''}</li>`)}</ol>` : 'none yet'}${d.nextAttempt ? html`<br><span class="help">next attempt ${fmtDate(d.nextAttempt)}</span>` : ''}</td>
<td>${buttonForm(`/dashboard/webhooks/deliveries/${d.reference}/resend`, ctx.page.csrf, 'Resend')}</td></tr>`,
  );
const deliveryHeaders = ['Delivery', 'Event', 'Endpoint', 'Status', 'Attempts', ''];

/** One endpoint's page: its health, buttons, edit form and deliveries. */
function endpointView(s: DashboardServices): PageFn {
  const w = s.webhooks;
  return async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const e = await w.endpoint(ctx.orgId, refParam(req));
    const { webhookDeliveries } = await w.listDeliveries(ctx.orgId, { limit: 50, endpointReference: e.reference });
    const v = opts.values;
    return page(
      ctx.page,
      'Webhook endpoint',
      html`<p><a href="/dashboard/webhooks">All endpoints</a></p>
<dl class="facts"><dt>Reference</dt><dd>${shortRef(e.reference)}</dd><dt>Health (24 h)</dt><dd>${healthOf(await endpointHealth(s, ctx.orgId), e.reference, e.enabled, e.disabledReason)}</dd>
${e.previousSecretExpires ? html`<dt>Previous secret</dt><dd>also signs until ${fmtDate(e.previousSecretExpires)}</dd>` : ''}</dl>
<p>${buttonForm(`/dashboard/webhooks/${e.reference}/test`, ctx.page.csrf, 'Send test event')}
${buttonForm(`/dashboard/webhooks/${e.reference}/${e.enabled ? 'disable' : 'enable'}`, ctx.page.csrf, e.enabled ? 'Disable' : 'Enable')}
${buttonForm(`/dashboard/webhooks/${e.reference}/rotate-secret`, ctx.page.csrf, 'Rotate secret', { confirm: 'Create a new signing secret? The current one keeps signing for 24 hours.' })}
${buttonForm(`/dashboard/webhooks/${e.reference}/delete`, ctx.page.csrf, 'Delete', { danger: true, confirm: 'Delete this endpoint? Queued deliveries to it stop.' })}</p>
<section class="card" aria-labelledby="edit-endpoint"><h2 id="edit-endpoint">Edit</h2>
${form(
  `/dashboard/webhooks/${e.reference}`,
  ctx.page.csrf,
  html`${field({ label: 'Endpoint URL', name: 'url', type: 'url', required: true, maxlength: 2000, value: v ? value(v, 'url') : e.url })}
${field({ label: 'Description', name: 'description', maxlength: 500, value: v ? value(v, 'description') : e.description })}
${eventTypeBoxes(v ? values(v, 'eventTypes') : e.eventTypes)}<button type="submit">Save endpoint</button>`,
  { label: 'Edit endpoint' },
)}</section>
<h2>Deliveries</h2>${table(deliveryHeaders, deliveryRows(ctx, webhookDeliveries, new Map([[e.reference, e.url]])), { caption: 'Deliveries to this endpoint', empty: 'No deliveries yet. Send a test event above, or wait for the next event.' })}`,
      { error: opts.error, notice: opts.notice },
    );
  };
}

/** One endpoint: editing, enabling and disabling it, rotating its secret, a test event, deleting it. */
function endpointPages(r: DashRouter): void {
  const w = r.s.webhooks;
  const endpointPage = endpointView(r.s);
  r.page('/dashboard/webhooks/:ref', 'partner', endpointPage);
  r.action(
    '/dashboard/webhooks/:ref',
    'partner',
    async (req, ctx) => {
      const input = endpointInput(req.body);
      const e = await w.updateEndpoint(ctx.orgId, refParam(req), { ...input, description: input.description ?? null });
      return { redirect: `/dashboard/webhooks/${e.reference}`, notice: 'Endpoint saved.' };
    },
    endpointPage,
  );
  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    r.action(
      `/dashboard/webhooks/:ref/${action}`,
      'partner',
      async (req, ctx) => {
        const e = await w.updateEndpoint(ctx.orgId, refParam(req), { enabled });
        return {
          redirect: `/dashboard/webhooks/${e.reference}`,
          notice: `Endpoint ${enabled ? 'enabled' : 'disabled'}.`,
        };
      },
      endpointPage,
    );
  }
  r.action(
    '/dashboard/webhooks/:ref/rotate-secret',
    'partner',
    async (req, ctx) => {
      const e = await w.rotateSecret(ctx.orgId, refParam(req));
      return {
        html: page(
          ctx.page,
          'New signing secret',
          html`<p>Endpoint ${e.url}: the previous secret also signs until ${fmtDate(e.previousSecretExpires)}.</p>${secretBox('webhook-secret', e.secret, 'new signing secret')}<p><a href="/dashboard/webhooks/${e.reference}">Back to the endpoint</a></p>`,
        ),
      };
    },
    endpointPage,
  );
  r.action(
    '/dashboard/webhooks/:ref/test',
    'partner',
    async (req, ctx) => {
      const d = await w.testEndpoint(ctx.orgId, refParam(req));
      const last = d.attempts[d.attempts.length - 1];
      return {
        redirect: `/dashboard/webhooks/${d.endpointReference}`,
        notice: `Test event sent: ${d.status}${last ? ` (response ${last.responseStatus ?? 'none'}${last.error ? `: ${last.error}` : ''})` : ''}.`,
      };
    },
    endpointPage,
  );
  r.action(
    '/dashboard/webhooks/:ref/delete',
    'partner',
    async (req, ctx) => {
      await w.deleteEndpoint(ctx.orgId, refParam(req));
      return { redirect: '/dashboard/webhooks', notice: 'Endpoint deleted.' };
    },
    endpointPage,
  );
}

/** Every delivery, filtered by status, and resending one. */
function deliveryPages(r: DashRouter): void {
  const w = r.s.webhooks;
  const deliveriesPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const q = req.query as Record<string, string | undefined>;
    const status = ['pending', 'succeeded', 'failed'].includes(q.status ?? '') ? q.status : undefined;
    const [{ webhookDeliveries }, { webhookEndpoints }] = await Promise.all([
      w.listDeliveries(ctx.orgId, { limit: 100, status }),
      w.listEndpoints(ctx.orgId, ALL),
    ]);
    return page(
      ctx.page,
      'Webhook deliveries',
      html`<form method="get" class="filters" aria-label="Filter deliveries">${select({
        label: 'Status',
        name: 'status',
        value: status ?? '',
        options: [
          { value: '', label: 'any' },
          { value: 'pending', label: 'pending' },
          { value: 'succeeded', label: 'succeeded' },
          { value: 'failed', label: 'failed' },
        ],
      })}<button type="submit" class="btn secondary">Filter</button></form>
${table(deliveryHeaders, deliveryRows(ctx, webhookDeliveries, new Map(webhookEndpoints.map((e) => [e.reference, e.url]))), { caption: 'Deliveries, newest first', empty: 'No deliveries yet. Add an endpoint under Webhooks and every event is delivered to it.' })}`,
      { error: opts.error },
    );
  };
  r.page('/dashboard/webhooks/deliveries', 'partner', deliveriesPage);
  r.action(
    '/dashboard/webhooks/deliveries/:ref/resend',
    'partner',
    async (req, ctx) => {
      const d = await w.resend(ctx.orgId, refParam(req));
      return { redirect: '/dashboard/webhooks/deliveries', notice: `Resent as delivery ${d.reference}.` };
    },
    deliveriesPage,
  );
}

/** The events of the last 30 days with their data. */
function eventsPage(r: DashRouter): void {
  const w = r.s.webhooks;
  r.page('/dashboard/events', 'partner', async (_req, ctx) => {
    const { events } = await w.listEvents(ctx.orgId, { limit: 100 });
    return page(
      ctx.page,
      'Events',
      html`<p>Events of the last 30 days, newest first.</p>${table(
        ['Event', 'Type', 'Time', 'Data'],
        events.map(
          (e) => html`<tr><td>${shortRef(e.reference)}</td><td>${e.type}</td><td>${fmtDate(e.timestamp)}</td>
<td><details><summary>Show</summary><pre>${JSON.stringify(e.data, null, 2)}</pre></details></td></tr>`,
        ),
        { caption: 'Events', empty: 'No events yet. Events appear when your orders, shipments and claims change.' },
      )}`,
    );
  });
}

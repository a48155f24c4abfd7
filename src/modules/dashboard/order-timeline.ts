import type { CallbackAttempt, CallbackJob } from '../orders/service.ts';
import type { OrderEvent } from '../webhooks/service.ts';
import { type Html, badge, fmtDate, html, plural } from './html.ts';

type Tone = 'ok' | 'warn' | 'bad';
interface Snapshot {
  status?: { code?: string };
  dropshipAddressReference?: string | null;
  orderlines?: Array<{ index: number; canceledQuantity: number }>;
}

/** One step of an order's history; `tone` colours its dot (a callback attempt's outcome). */
export interface TimelineStep {
  at: Date;
  what: Html;
  detail?: Html;
  tone?: Tone;
}

const deliveryTone = (status: string): Tone => (status === 'succeeded' ? 'ok' : status === 'failed' ? 'bad' : 'warn');

/** What changed between two snapshots of the order, in words. */
function changes(before: Snapshot | null, after: Snapshot): string[] {
  if (!before) return ['Updated'];
  const out: string[] = [];
  if (before.status?.code !== after.status?.code) out.push(`Status: ${(after.status?.code ?? '?').replace('_', ' ')}`);
  if (before.dropshipAddressReference !== after.dropshipAddressReference) out.push('Address changed');
  for (const line of after.orderlines ?? []) {
    const old = before.orderlines?.find((l) => l.index === line.index);
    if (old && line.canceledQuantity > old.canceledQuantity)
      out.push(`Line ${line.index}: ${line.canceledQuantity - old.canceledQuantity} canceled`);
  }
  return out.length ? out : ['Updated'];
}

function eventSteps(events: OrderEvent[]): TimelineStep[] {
  let previous: Snapshot | null = null;
  return events.map((e) => {
    const snap = (e.data.order ?? {}) as Snapshot;
    const what =
      e.type === 'order.created'
        ? ['Created']
        : e.type === 'order.shipped'
          ? ['Shipped']
          : e.type === 'order.updated'
            ? changes(previous, snap)
            : [e.type];
    previous = snap;
    const deliveries = e.deliveries;
    return {
      at: e.created,
      what: html`${what.join('; ')}`,
      detail: deliveries.length
        ? html`<ul class="deliveries">${deliveries.map((d) => html`<li>Webhook <span class="ref">${d.url}</span> ${badge(d.status, deliveryTone(d.status))} <span class="help">${plural(d.attempts.length, 'attempt')}</span>${d.attempts.length ? html`<ol class="attempts">${d.attempts.map((x) => html`<li>${fmtDate(x.at)}: ${x.responseStatus === null ? 'no response' : `HTTP ${x.responseStatus}`}${x.error ? ` – ${x.error}` : ''}</li>`)}</ol>` : ''}</li>`)}</ul>`
        : undefined,
    };
  });
}

/** One step per attempt of the store callback, coloured by its outcome. */
function attemptSteps(attempts: CallbackAttempt[]): TimelineStep[] {
  return attempts.map((a) => {
    const tone = a.outcome === 'delivered' ? 'ok' : a.outcome === 'failed' ? 'bad' : 'warn';
    const label =
      a.outcome === 'not_sent' ? 'not sent' : a.responseStatus === null ? 'no answer' : `HTTP ${a.responseStatus}`;
    return {
      at: a.at,
      tone,
      what: html`Callback to the store, attempt ${a.attempt} ${badge(label, tone)}`,
      detail: html`<div class="help">${[a.error, a.outcome === 'not_sent' ? null : `${a.durationMs} ms`].filter(Boolean).join(' · ')}</div>`,
    };
  });
}

/**
 * What the callback jobs add to their attempts: the next attempt of one still retrying, a job
 * given up, and a summary for a job whose attempts predate their recording (no rows of its own).
 */
function callbackJobSteps(jobs: CallbackJob[], attempts: CallbackAttempt[]): TimelineStep[] {
  const recorded = new Set(attempts.map((a) => a.jobId));
  const steps: TimelineStep[] = [];
  for (const j of jobs) {
    const hasRows = recorded.has(j.id);
    const lastError = j.lastError && !hasRows ? `; last error: ${j.lastError}` : '';
    if (j.status === 'pending')
      steps.push({
        at: j.runAt,
        tone: 'warn',
        what: html`Callback to the store ${badge(j.attempts ? 'retrying' : 'queued', 'warn')}`,
        detail: html`<div class="help">${j.attempts ? `next attempt; ${plural(j.attempts, 'attempt')} failed so far` : 'not sent yet'}${lastError}</div>`,
      });
    else if (j.status === 'dead')
      steps.push({
        at: j.updatedAt,
        tone: 'bad',
        what: html`Callback to the store ${badge('given up', 'bad')}`,
        detail: html`<div class="help">${plural(j.attempts, 'attempt')}${j.lastError ? `; last error: ${j.lastError}` : ''}</div>`,
      });
    else if (j.status === 'succeeded' && !hasRows)
      steps.push({
        at: j.updatedAt,
        tone: 'ok',
        what: html`Callback to the store ${badge('delivered', 'ok')}`,
        detail: html`<div class="help">${plural(j.attempts, 'attempt')}</div>`,
      });
  }
  return steps;
}

/** Every step of an order's history, oldest first. */
export function orderTimeline(input: {
  created: Date;
  events: OrderEvent[];
  callbackJobs: CallbackJob[];
  callbackAttempts: CallbackAttempt[];
}): TimelineStep[] {
  const steps = eventSteps(input.events);
  if (!input.events.some((e) => e.type === 'order.created')) steps.push({ at: input.created, what: html`Created` });
  steps.push(...attemptSteps(input.callbackAttempts), ...callbackJobSteps(input.callbackJobs, input.callbackAttempts));
  return steps.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** The timeline as a list; with nothing but the creation known, it says what will appear. */
export function timelineHtml(steps: TimelineStep[]): Html {
  const list = html`<ol class="timeline">${steps.map((x) => html`<li${x.tone ? html` class="${x.tone}"` : ''}><time datetime="${x.at.toISOString()}">${fmtDate(x.at)}</time> ${x.what}${x.detail ?? ''}</li>`)}</ol>`;
  const empty =
    steps.length <= 1
      ? html`<p class="empty">Nothing else has happened to this order yet. Changes, production, shipping, webhook deliveries and callbacks to the store appear here as they happen.</p>`
      : '';
  return html`${list}${empty}
<p class="help">Events, webhook deliveries and callback attempts are kept 30 days; older steps drop out of this history.</p>`;
}

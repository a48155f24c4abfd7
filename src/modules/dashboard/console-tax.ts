import type { FastifyRequest } from 'fastify';
import { required, text } from './forms.ts';
import { type Html, badge, field, fmtDate, form, html, table } from './html.ts';
import { vatCheckFacts } from './partner-accounts.ts';
import type { Ctx, DashRouter, DashboardServices, PageOptions } from './router.ts';

const billingOf = (account: string) => `/console/billing?account=${encodeURIComponent(account)}`;

/** The partners' requests to change tax details, oldest first: the operators' queue. */
export async function pendingTaxCard(s: DashboardServices): Promise<Html> {
  const pending = await s.billing.pendingTaxChanges(50);
  return html`<section class="card"><h2>Tax details waiting for approval</h2>${table(
    ['Requested', 'Account', 'Legal entity', 'VAT number', 'Check', 'By'],
    pending.map(
      (p) =>
        html`<tr><td>${fmtDate(p.requested)}</td><td><a href="${billingOf(p.accountReference)}">${p.accountReference}</a></td><td>${p.legalEntity.name}</td><td>${p.legalEntity.vatNumber ?? 'none'}</td><td>${badge(p.check.status)}</td><td>${p.requestedBy}</td></tr>`,
    ),
    { caption: 'Pending tax details requests', empty: 'No request is waiting.' },
  )}</section>`;
}

/** An account's tax details with their check, and its pending request with approve and reject. */
export async function taxCard(s: DashboardServices, account: string, ctx: Ctx): Promise<Html> {
  const t = await s.billing.taxDetails(null, account);
  const p = t.pending;
  const decide = p
    ? html`<h3>${badge('pending', 'warn')} Requested ${fmtDate(p.requested)} by ${p.requestedBy}</h3>
<dl class="facts"><dt>Legal entity</dt><dd>${p.legalEntity.name}</dd><dt>VAT number</dt><dd>${p.legalEntity.vatNumber ?? 'none'}</dd><dt>Billing country</dt><dd>${p.billingAddress.countryCode ?? '—'}</dd><dt>Check when requested</dt><dd>${badge(p.check.status)} ${p.check.detail}</dd></dl>
<div class="grid">${form(
        `/console/billing/tax-requests/${p.reference}/approve?account=${encodeURIComponent(account)}`,
        ctx.page.csrf,
        html`${field({ label: 'Note (optional)', name: 'note', maxlength: 500, help: 'Approving checks the number again; without a live VIES check your approval confirms it.' })}<button type="submit">Approve</button>`,
        { label: 'Approve the request' },
      )}${form(
        `/console/billing/tax-requests/${p.reference}/reject?account=${encodeURIComponent(account)}`,
        ctx.page.csrf,
        html`${field({ label: 'Reason (the partner sees it)', name: 'note', required: true, maxlength: 500 })}<button type="submit" class="btn secondary">Reject</button>`,
        { label: 'Reject the request' },
      )}</div>`
    : html`<p>No change is waiting.</p>`;
  return html`<section class="card"><h2>Tax details</h2><dl class="facts"><dt>Legal entity</dt><dd>${t.legalEntity.name}</dd><dt>VAT number</dt><dd>${t.legalEntity.vatNumber ?? 'none'}</dd><dt>Billing country</dt><dd>${t.billingCountry ?? '—'}</dd>${vatCheckFacts(t)}</dl>${decide}</section>`;
}

/** Console actions on a partner's tax details request. */
export function consoleTaxPages(
  r: DashRouter,
  back: (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => Promise<string>,
) {
  const { s } = r;
  const ref = (req: FastifyRequest) => (req.params as { ref: string }).ref;
  r.action(
    '/console/billing/tax-requests/:ref/approve',
    'operator',
    async (req, ctx) => {
      const { accountReference } = await s.billing.approveTaxChange(
        ref(req),
        ctx.session.user.email,
        text(req.body, 'note', 'Note', { max: 500 }) ?? null,
      );
      return { redirect: billingOf(accountReference), notice: 'Tax details approved and applied' };
    },
    back,
  );
  r.action(
    '/console/billing/tax-requests/:ref/reject',
    'operator',
    async (req, ctx) => {
      const { accountReference } = await s.billing.rejectTaxChange(
        ref(req),
        ctx.session.user.email,
        required(req.body, 'note', 'Reason', 500),
      );
      return { redirect: billingOf(accountReference), notice: 'Request rejected; the account is unchanged' };
    },
    back,
  );
}

import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../platform/errors.ts';
import { required, text } from './forms.ts';
import { type Html, badge, euros, field, fmtDate, form, html, shortRef } from './html.ts';
import { page } from './layout.ts';
import { addressFieldset, addressFrom, typed, typedAddress } from './partner-structure.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

type TaxView = Awaited<ReturnType<DashRouter['s']['billing']['taxDetails']>>;

const CHECK_TONE = { valid: 'ok', invalid: 'bad', unchecked: 'warn' } as const;
const CHECK_LABEL = { valid: 'valid', invalid: 'invalid', unchecked: 'not checked' } as const;

/** The VAT number's check as the account keeps it, and who made it. */
export function vatCheckFacts(t: TaxView): Html {
  const c = t.vatCheck;
  return html`<dt>VAT check</dt><dd>${badge(CHECK_LABEL[c.status], CHECK_TONE[c.status])}${c.checked ? html` ${fmtDate(c.checked)} by ${c.checkedBy ?? '—'}` : ''}${c.detail ? html`<br><small>${c.detail}</small>` : ''}</dd>`;
}

/** The partner's pending request, or the answer to the last one. */
function requestNote(t: TaxView): Html {
  const p = t.pending;
  if (p)
    return html`<div class="alert notice" role="status"><strong>${badge('pending', 'warn')} Change requested ${fmtDate(p.requested)}</strong>: legal entity ${p.legalEntity.name}, VAT number ${p.legalEntity.vatNumber ?? 'none'}, billing country ${p.billingAddress.countryCode ?? '—'}. It waits for our approval; your invoices use the details above until then.</div>`;
  const d = t.lastDecision;
  if (d?.status === 'rejected')
    return html`<div class="alert error" role="status">${badge('rejected', 'bad')} Your change of ${fmtDate(d.requested)} was not approved: ${d.note ?? ''}</div>`;
  return html``;
}

/**
 * Partner dashboard: accounts. The name and the billing address within its country are saved at
 * once; the legal entity, the VAT number and the billing country decide VAT, so a change of them is
 * a request that waits for an operator.
 */
export function partnerAccountPages(r: DashRouter): void {
  const { s } = r;
  const accountsPage = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const { accounts } = await s.organization.listAccounts(ctx.orgId, { limit: 100 });
    const taxes = await Promise.all(accounts.map((a) => s.billing.taxDetails(ctx.orgId, a.reference)));
    const editing = (req.params as { ref?: string }).ref;
    const cards = accounts.map((a, i) => {
      const t = taxes[i];
      const mine = editing === a.reference;
      const shown = t.pending ?? { legalEntity: a.legalEntity, billingAddress: a.billingAddress };
      return html`<section class="card" aria-labelledby="acc-${a.reference}"><h2 id="acc-${a.reference}">${a.name}</h2>
<dl class="facts"><dt>Reference</dt><dd>${shortRef(a.reference)}</dd><dt>Payment terms</dt><dd>${a.paymentTermDays} days</dd><dt>Balance</dt><dd>${euros(a.balance)}</dd>
<dt>Legal entity</dt><dd>${a.legalEntity.name}</dd><dt>VAT number</dt><dd>${a.legalEntity.vatNumber ?? 'none'}</dd>${vatCheckFacts(t)}</dl>
${requestNote(t)}
${form(
  `/dashboard/accounts/${a.reference}`,
  ctx.page.csrf,
  html`
${field({ label: 'Account name', name: 'name', required: true, maxlength: 200, value: mine ? typed(opts, 'name', a.name) : a.name })}
<div class="grid">${field({ label: 'Legal entity name', name: 'legalEntityName', required: true, maxlength: 200, value: mine ? typed(opts, 'legalEntityName', shown.legalEntity.name) : shown.legalEntity.name })}
${field({ label: 'VAT number', name: 'vatNumber', maxlength: 30, help: 'With the member state prefix, e.g. DE123456788. Checked for its form and check digits, then confirmed by us.', value: mine ? typed(opts, 'vatNumber', shown.legalEntity.vatNumber) : shown.legalEntity.vatNumber })}</div>
${addressFieldset('Billing address', 'billingAddress', mine ? typedAddress(opts, 'billingAddress', shown.billingAddress) : shown.billingAddress)}
<p class="help">Changes of the legal entity, the VAT number or the billing country decide your invoices’ VAT: they wait for our approval.</p>
<button type="submit">Save account</button>`,
  { label: `Edit account ${a.name}` },
)}</section>`;
    });
    return page(
      ctx.page,
      'Accounts',
      html`<p>Accounts are the billing entities; each store bills to one account. Payment terms and balance are set by the service.</p>
${cards}`,
      opts,
    );
  };
  r.page('/dashboard/accounts', 'partner', accountsPage);
  r.action(
    '/dashboard/accounts/:ref',
    'partner',
    async (req, ctx) => {
      const ref = (req.params as { ref: string }).ref;
      const name = required(req.body, 'name', 'Account name');
      const legalEntityName = required(req.body, 'legalEntityName', 'Legal entity name');
      const address = addressFrom(req.body, 'billingAddress', 'Billing address');
      if (!address) throw badRequest('Billing address: fill in the address');
      const before = await s.billing.taxDetails(ctx.orgId, ref);
      // The request is checked (and refused) before anything is saved.
      const { requested } = await s.billing.requestTaxChange(
        ctx.orgId,
        ref,
        {
          legalEntityName,
          vatNumber: text(req.body, 'vatNumber', 'VAT number', { max: 30 }) ?? null,
          billingAddress: address,
        },
        ctx.session.user.email,
      );
      const sameCountry = address.countryCode === before.billingCountry;
      const a = await s.organization.updateAccount(ctx.orgId, ref, {
        name,
        ...(sameCountry ? { billingAddress: address } : {}),
      });
      return {
        redirect: '/dashboard/accounts',
        notice: requested
          ? `Account ${a.name} saved. The new legal entity, VAT number or billing country waits for our approval.`
          : `Account ${a.name} saved.`,
      };
    },
    accountsPage,
  );
}

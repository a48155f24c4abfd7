import type { FastifyRequest } from 'fastify';
import { type Html, badge, euros, fmtDate, html, table } from './html.ts';
import { page } from './layout.ts';
import type { DashRouter } from './router.ts';

const ALL = { limit: 100 };

/** Money of the partner's accounts: balance, ledger, invoices and their PDFs. */
export function partnerBillingPages(r: DashRouter): void {
  const { s } = r;
  const testEnv = s.config.env === 'test';

  r.page('/dashboard/billing', 'partner', async (_req, ctx) => {
    const { accounts } = await s.organization.listAccounts(ctx.orgId, ALL);
    const sections: Html[] = [];
    for (const a of accounts) {
      const ledger = await s.billing.ledger(ctx.orgId, a.reference, { limit: 50 });
      const { invoices } = await s.billing.invoices(ctx.orgId, a.reference, { limit: 24 });
      sections.push(html`<section class="card" aria-labelledby="acc-${a.reference}"><h2 id="acc-${a.reference}">${a.name}</h2>
<dl class="facts"><dt>Balance</dt><dd><strong>${euros(ledger.balance)}</strong></dd>
<dt>Payment terms</dt><dd>${a.prepaid ? 'prepaid: orders go into production when the balance covers them' : `invoiced monthly, due in ${a.paymentTermDays} days`}</dd>
${testEnv ? html`<dt>Would be charged</dt><dd>${badge('test environment', 'warn')} ${euros(ledger.wouldBeBalance ?? 0)} would be the balance if these orders were charged; nothing is charged here.</dd>` : ''}</dl>
<h3>Ledger</h3>
${table(
  ['Date', 'What', 'Order', 'Amount'],
  ledger.entries.map(
    (e) =>
      html`<tr><td>${fmtDate(e.created)}</td><td>${e.description}${e.simulated ? html` ${badge('would be charged (test)', 'warn')}` : ''}</td><td>${e.orderReference ? html`<a href="/dashboard/orders/${e.orderReference}">${e.orderReference}</a>` : ''}</td><td>${euros(e.amount)}</td></tr>`,
  ),
  { caption: `Ledger of ${a.name}, newest first`, empty: 'No entries yet.' },
)}
<h3>Invoices</h3>
${table(
  ['Number', 'Period', 'Issued', 'Due', 'Total', 'PDF'],
  invoices.map(
    (i) =>
      html`<tr><td>${i.number}${i.kind === 'credit_note' ? html` ${badge('credit note')}` : ''}</td><td>${i.periodStart.slice(0, 7)}</td><td>${fmtDate(i.issued)}</td><td>${fmtDate(i.due)}</td><td>${euros(i.total)}</td><td><a href="/dashboard/billing/invoices/${i.reference}/pdf">Download ${i.number}.pdf</a></td></tr>`,
  ),
  {
    caption: `Invoices of ${a.name}`,
    empty: testEnv ? 'The test environment issues no invoices.' : 'No invoices yet: they are issued monthly.',
  },
)}</section>`);
    }
    return page(ctx.page, 'Billing', html`${sections}`);
  });

  r.app.get(
    '/dashboard/billing/invoices/:ref/pdf',
    { config: { access: 'public', dashboard: 'partner' } },
    async (req: FastifyRequest, reply) => {
      const ctx = await r.context(req, 'partner');
      const { number, pdf } = await s.billing.invoicePdf(ctx.orgId, (req.params as { ref: string }).ref);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${number}.pdf"`)
        .header('cache-control', 'private, no-store')
        .send(pdf);
    },
  );
}

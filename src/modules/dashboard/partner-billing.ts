import type { FastifyRequest } from 'fastify';
import { type Html, badge, euros, fmtDate, html, table } from './html.ts';
import { page } from './layout.ts';
import type { DashRouter } from './router.ts';

const ALL = { limit: 100 };

const STATE: Record<string, { label: string; tone: 'ok' | 'warn' | 'bad' | 'neutral' }> = {
  open: { label: 'open', tone: 'neutral' },
  paid: { label: 'paid', tone: 'ok' },
  partially_paid: { label: 'partially paid', tone: 'warn' },
  overdue: { label: 'overdue', tone: 'bad' },
};

/** An invoice's payment state and what is left to pay; a credit note names the invoice it credits. */
function paymentCell(
  i: {
    kind: string;
    correctsInvoiceReference: string | null;
    payment: { status: string; outstanding: number } | null;
  },
  numbers: ReadonlyMap<string, string>,
): Html {
  if (i.kind === 'credit_note')
    return html`credits ${numbers.get(i.correctsInvoiceReference ?? '') ?? 'an earlier invoice'}`;
  if (!i.payment) return html``;
  const st = STATE[i.payment.status] ?? { label: i.payment.status, tone: 'neutral' as const };
  return html`${badge(st.label, st.tone)}${i.payment.outstanding > 0 ? html` ${euros(i.payment.outstanding)} to pay` : ''}`;
}

/** Money of the partner's accounts: balance, ledger, invoices with their payment state, PDFs and UBL e-invoices. */
export function partnerBillingPages(r: DashRouter): void {
  const { s } = r;
  const testEnv = s.config.env === 'test';

  r.page('/dashboard/billing', 'partner', async (_req, ctx) => {
    const { accounts } = await s.organization.listAccounts(ctx.orgId, ALL);
    const sections: Html[] = [];
    for (const a of accounts) {
      const ledger = await s.billing.ledger(ctx.orgId, a.reference, { limit: 50 });
      const { invoices } = await s.billing.invoices(ctx.orgId, a.reference, { limit: 24 });
      const numbers = new Map(invoices.map((i) => [i.reference, i.number]));
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
  ['Number', 'Period', 'Issued', 'Due', 'Total', 'Payment', 'Documents'],
  invoices.map(
    (i) =>
      html`<tr><td>${i.number}${i.kind === 'credit_note' ? html` ${badge('credit note')}` : ''}</td><td>${i.periodStart.slice(0, 7)}</td><td>${fmtDate(i.issued)}</td><td>${i.kind === 'credit_note' ? '' : fmtDate(i.due)}</td><td>${euros(i.total)}</td><td>${paymentCell(i, numbers)}</td><td class="docs"><a href="/dashboard/billing/invoices/${i.reference}/pdf" aria-label="${i.number} as PDF">PDF</a> · <a href="/dashboard/billing/invoices/${i.reference}/ubl" aria-label="${i.number} as UBL e-invoice (XML)">UBL</a></td></tr>`,
  ),
  {
    caption: `Invoices and credit notes of ${a.name}, newest first`,
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
  r.app.get(
    '/dashboard/billing/invoices/:ref/ubl',
    { config: { access: 'public', dashboard: 'partner' } },
    async (req: FastifyRequest, reply) => {
      const ctx = await r.context(req, 'partner');
      const { number, xml } = await s.billing.invoiceUbl(ctx.orgId, (req.params as { ref: string }).ref);
      return reply
        .type('application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="${number}.xml"`)
        .header('cache-control', 'private, no-store')
        .send(xml);
    },
  );
}

import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { integer, required, text } from './forms.ts';
import { type Html, badge, euros, field, fmtDate, form, html, table } from './html.ts';
import { consoleBankPages } from './console-bank.ts';
import { consoleTaxPages, pendingTaxCard, taxCard } from './console-tax.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

const PAYMENT_LABELS = { open: 'open', partially_paid: 'partially paid', paid: 'paid', overdue: 'overdue' } as const;

/** An invoice's payment state with what is left; credit notes have none. */
export function paymentCell(
  p: { status: keyof typeof PAYMENT_LABELS; outstanding: number } | null,
  due: string,
): Html | string {
  if (!p) return '';
  const tone = p.status === 'paid' ? 'ok' : p.status === 'overdue' ? 'bad' : 'warn';
  return html`${badge(PAYMENT_LABELS[p.status], tone)}${p.outstanding ? html` ${euros(p.outstanding)} due ${fmtDate(due)}` : ''}`;
}

/** Operator console: an account's ledger, invoices and tax details, payments, credit notes, the monthly run. */
export function consoleBillingPages(r: DashRouter): void {
  const { s } = r;
  const accountOf = (req: FastifyRequest) =>
    ((req.query ?? {}) as { account?: string }).account?.trim().slice(0, 200) ?? '';

  const billingPage = async (account: string, ctx: Ctx, opts: PageOptions) => {
    const top = html`<div class="grid"><form method="get" class="card" aria-label="Find an account"><div class="field"><label for="f-account">Account reference</label><input id="f-account" name="account" value="${account}" required></div><button type="submit" class="btn secondary">Show</button></form>
<section class="card"><h2>Bank payments</h2><p><a href="/console/billing/bank">Import a bank statement</a> and assign the payments it could not match.</p></section>
<section class="card"><h2>Monthly invoices</h2>${form(
      '/console/billing/issue',
      ctx.page.csrf,
      html`${field({ label: 'Month (YYYY-MM)', name: 'month', pattern: '\\d{4}-\\d{2}', help: 'Empty: last month. The hourly maintenance job issues last month’s invoices by itself; issuing again changes nothing.' })}<button type="submit">Issue invoices</button>`,
    )}</section></div>`;
    if (!account) return page(ctx.page, 'Billing', html`${top}${await pendingTaxCard(s)}`, opts);
    let ledger: Awaited<ReturnType<typeof s.billing.ledger>>;
    try {
      ledger = await s.billing.ledger(null, account, { limit: 50 });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        return page(ctx.page, 'Billing', top, { ...opts, error: `No account ${account}` });
      throw err;
    }
    const { invoices } = await s.billing.invoices(null, account, { limit: 24 });
    const rows: Html[] = invoices.map(
      (i) =>
        html`<tr><td>${i.number}${i.kind === 'credit_note' ? html` ${badge('credit note')}` : ''}</td><td>${i.periodStart.slice(0, 7)}</td><td>${fmtDate(i.issued)}</td><td>${euros(i.total)}</td><td>${paymentCell(i.payment, i.due)}</td><td><a href="/console/billing/invoices/${i.reference}/pdf">${i.number}.pdf</a></td><td>${
          i.kind === 'invoice'
            ? form(
                `/console/billing/invoices/${i.reference}/credit-note?account=${encodeURIComponent(account)}`,
                ctx.page.csrf,
                html`${field({ label: 'Net cents (empty: all)', name: 'net', type: 'number', min: 1 })}${field({ label: 'Reason', name: 'reason', required: true, maxlength: 500 })}<button type="submit" class="btn secondary">Credit note</button>`,
              )
            : ''
        }</td></tr>`,
    );
    return page(
      ctx.page,
      `Billing of ${account}`,
      html`${top}<dl class="facts"><dt>Balance</dt><dd><strong>${euros(ledger.balance)}</strong></dd>${ledger.wouldBeBalance !== undefined ? html`<dt>Would be</dt><dd>${badge('test environment', 'warn')} ${euros(ledger.wouldBeBalance)}</dd>` : ''}</dl>
${await taxCard(s, account, ctx)}
<section class="card"><h2>Record a payment</h2>${form(
        `/console/billing/payments?account=${encodeURIComponent(account)}`,
        ctx.page.csrf,
        html`${field({ label: 'Amount in cents', name: 'amount', type: 'number', min: 1, required: true })}${field({ label: 'Note', name: 'note', required: true, maxlength: 500, help: 'Bank reference or why' })}${field({ label: 'Pays invoice (reference, optional)', name: 'invoice', maxlength: 200, help: 'Empty: the open invoices, oldest due first. What is left stays as credit for the next invoice.' })}<button type="submit">Record payment</button>`,
      )}</section>
<h2>Ledger</h2>${table(
        ['Date', 'Kind', 'What', 'Order', 'Amount'],
        ledger.entries.map(
          (e) =>
            html`<tr><td>${fmtDate(e.created)}</td><td>${badge(e.kind)}${e.simulated ? html` ${badge('simulated', 'warn')}` : ''}</td><td>${e.description}</td><td>${e.orderReference ?? ''}</td><td>${euros(e.amount)}</td></tr>`,
        ),
        { caption: 'Ledger, newest first', empty: 'No entries yet.' },
      )}
<h2>Invoices</h2>${table(['Number', 'Month', 'Issued', 'Total', 'Payment', 'PDF', 'Correct'], rows, { caption: 'Invoices and credit notes', empty: 'No invoices yet.' })}`,
      opts,
    );
  };

  const back = async (req: FastifyRequest, ctx: Ctx, opts: PageOptions) => billingPage(accountOf(req), ctx, opts);
  const to = (req: FastifyRequest) => `/console/billing?account=${encodeURIComponent(accountOf(req))}`;
  r.page('/console/billing', 'operator', async (req, ctx) => billingPage(accountOf(req), ctx, {}));
  consoleTaxPages(r, back);
  consoleBankPages(r);
  r.action(
    '/console/billing/issue',
    'operator',
    async (req) => {
      const result = await s.billing.issueMonthlyInvoices(text(req.body, 'month', 'Month', { max: 7 }));
      return {
        redirect: '/console/billing',
        notice: `${result.invoices.length} invoice(s) issued for ${result.month}`,
      };
    },
    back,
  );
  r.action(
    '/console/billing/payments',
    'operator',
    async (req) => {
      const amount = integer(req.body, 'amount', 'Amount in cents', { min: 1, max: 1_000_000_000, required: true })!;
      const { payment } = await s.billing.recordPayment(
        accountOf(req),
        amount,
        required(req.body, 'note', 'Note', 500),
        text(req.body, 'invoice', 'Invoice', { max: 200 }),
      );
      const paid = payment.allocations.map((a) => `${a.number} ${euros(a.amount)}`).join(', ');
      return {
        redirect: to(req),
        notice: `Payment of ${euros(amount)} recorded${paid ? `: ${paid}` : ''}${payment.unallocated ? `; ${euros(payment.unallocated)} kept as credit` : ''}`,
      };
    },
    back,
  );
  r.action(
    '/console/billing/invoices/:ref/credit-note',
    'operator',
    async (req) => {
      const net = integer(req.body, 'net', 'Net cents', { min: 1, max: 1_000_000_000 });
      const { invoice } = await s.billing.issueCreditNote((req.params as { ref: string }).ref, {
        reason: required(req.body, 'reason', 'Reason', 500),
        ...(net !== undefined ? { net } : {}),
      });
      return { redirect: to(req), notice: `Credit note ${invoice.number} issued` };
    },
    back,
  );
  r.app.get(
    '/console/billing/invoices/:ref/pdf',
    { config: { access: 'public', dashboard: 'operator' } },
    async (req, reply) => {
      const { number, pdf } = await s.billing.invoicePdf(null, (req.params as { ref: string }).ref);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${number}.pdf"`)
        .header('cache-control', 'private, no-store')
        .send(pdf);
    },
  );
}

import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../platform/errors.ts';
import { BANK_STATEMENT_MAX_BYTES } from '../billing/routes-bank.ts';
import { file, fileBytes, required, text } from './forms.ts';
import { type Html, badge, field, fmtDate, form, html, table } from './html.ts';
import { page } from './layout.ts';
import type { Ctx, DashRouter, PageOptions } from './router.ts';

const money = (cents: number, currency: string) => `${currency} ${(cents / 100).toFixed(2)}`;

/** Operator console: bank statement upload and the payments the import could not match. */
export function consoleBankPages(r: DashRouter): void {
  const { s } = r;
  const bankPage = async (_req: FastifyRequest, ctx: Ctx, opts: PageOptions) => {
    const { payments } = await s.billing.bankPayments('unmatched', { limit: 100 });
    const recent = (await s.billing.bankPayments(null, { limit: 20 })).payments.filter((p) => p.status !== 'unmatched');
    const rows: Html[] = payments.map(
      (p) =>
        html`<tr><td>${p.bookingDate}</td><td>${money(p.amount, p.currency)}</td><td>${p.debtorName ?? '—'}<br><small>${p.debtorAccount ?? ''}</small></td><td>${p.remittance || '—'}</td><td>${p.detail}</td><td>${form(
          `/console/billing/bank/${p.reference}/assign`,
          ctx.page.csrf,
          html`${field({ label: 'Invoice or account reference', name: 'target', required: true, maxlength: 200, help: 'Invoice_…: pays that invoice first. Account_…: a payment or top-up of the account.' })}<button type="submit">Assign</button>`,
          { label: `Assign ${p.reference}` },
        )}${form(
          `/console/billing/bank/${p.reference}/dismiss`,
          ctx.page.csrf,
          html`${field({ label: 'Why it is no partner’s payment', name: 'note', required: true, maxlength: 500 })}<button type="submit" class="btn secondary">Dismiss</button>`,
          { label: `Dismiss ${p.reference}` },
        )}</td></tr>`,
    );
    return page(
      ctx.page,
      'Bank payments',
      html`<section class="card"><h2>Import a bank statement</h2>${form(
        '/console/billing/bank/import',
        ctx.page.csrf,
        html`${field({ label: 'camt.053 statement (XML)', name: 'statement', type: 'file', accept: '.xml,application/xml,text/xml', required: true, help: 'The ISO 20022 camt.053 file your bank exports. Importing the same statement again changes nothing.' })}<button type="submit">Import</button>`,
        { multipart: true, label: 'Import a bank statement' },
      )}</section>
<h2>Waiting for a person</h2>${table(['Booked', 'Amount', 'From', 'Description', 'Why unmatched', 'Decide'], rows, { caption: 'Incoming payments the import could not match, newest first', empty: 'Nothing waits: every imported payment is matched.' })}
<h2>Recently decided</h2>${table(
        ['Booked', 'Amount', 'From', 'Status', 'How'],
        recent.map(
          (p) =>
            html`<tr><td>${p.bookingDate}</td><td>${money(p.amount, p.currency)}</td><td>${p.debtorName ?? '—'}</td><td>${badge(p.status, p.status === 'dismissed' ? 'neutral' : 'ok')}</td><td>${p.detail}${p.decided ? html` <small>${fmtDate(p.decided)}</small>` : ''}</td></tr>`,
        ),
        { caption: 'Matched, assigned and dismissed payments', empty: 'None yet.' },
      )}`,
      opts,
    );
  };
  const who = (ctx: Ctx) => ctx.session.user.email;
  r.page('/console/billing/bank', 'operator', async (req, ctx) => bankPage(req, ctx, {}));
  r.action(
    '/console/billing/bank/import',
    'operator',
    async (req, ctx) => {
      const upload = file(req.body, 'statement');
      if (!upload) throw badRequest('Choose the camt.053 file to import');
      const res = await s.billing.importStatement((await fileBytes(upload)).toString('utf8'), who(ctx));
      return {
        redirect: '/console/billing/bank',
        notice: `${res.imported} payment(s) imported (${res.matched} matched, ${res.unmatched} waiting), ${res.repeated} imported before, ${res.skipped} not incoming`,
      };
    },
    bankPage,
    { file: { field: 'statement', maxBytes: BANK_STATEMENT_MAX_BYTES } },
  );
  const refOf = (req: FastifyRequest) => (req.params as { ref: string }).ref;
  r.action(
    '/console/billing/bank/:ref/assign',
    'operator',
    async (req, ctx) => {
      const target = required(req.body, 'target', 'Invoice or account reference', 200);
      const to = target.startsWith('Invoice_') ? { invoiceReference: target } : { accountReference: target };
      const p = await s.billing.assignBankPayment(refOf(req), to, who(ctx));
      return { redirect: '/console/billing/bank', notice: `Assigned: ${p.detail}` };
    },
    bankPage,
  );
  r.action(
    '/console/billing/bank/:ref/dismiss',
    'operator',
    async (req, ctx) => {
      const note = text(req.body, 'note', 'Why', { required: true, max: 500 })!;
      await s.billing.dismissBankPayment(refOf(req), note, who(ctx));
      return { redirect: '/console/billing/bank', notice: 'Dismissed' };
    },
    bankPage,
  );
}

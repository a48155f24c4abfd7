import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PageQuery, Strict, Type } from '../../platform/http/schemas.ts';
import { taxDetailsRoutes } from './routes-tax.ts';
import type { BillingService } from './service.ts';

const Ref = (name: string) => Strict({ [name]: Type.String({ maxLength: 200 }) });
const Reason = Type.String({ minLength: 1, maxLength: 500 });

/** Operator API of the money: ledgers, payments, invoices and credit notes. */
export function billingOperatorRoutes(app: FastifyInstance, s: { billing: BillingService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const op = { access: 'operator' as const };
  r.get(
    '/accounts/:accountReference/ledger',
    { config: op, schema: { params: Ref('accountReference'), querystring: Strict(PageQuery) } },
    async (req) => s.billing.ledger(null, req.params.accountReference, req.query),
  );
  r.post(
    '/accounts/:accountReference/payments',
    {
      config: op,
      schema: {
        params: Ref('accountReference'),
        body: Strict({
          amount: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
          note: Reason,
          /** The invoice it pays, first; the rest goes to the account's other open invoices. */
          invoiceReference: Type.Optional(Type.String({ maxLength: 200 })),
        }),
      },
    },
    async (req) =>
      s.billing.recordPayment(req.params.accountReference, req.body.amount, req.body.note, req.body.invoiceReference),
  );
  r.get(
    '/accounts/:accountReference/invoices',
    { config: op, schema: { params: Ref('accountReference'), querystring: Strict(PageQuery) } },
    async (req) => s.billing.invoices(null, req.params.accountReference, req.query),
  );
  r.post(
    '/invoices/issue',
    {
      config: op,
      schema: { body: Strict({ month: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}$' })) }) },
    },
    async (req) => s.billing.issueMonthlyInvoices(req.body.month),
  );
  r.get('/invoices/:invoiceReference', { config: op, schema: { params: Ref('invoiceReference') } }, async (req) => ({
    invoice: await s.billing.invoice(null, req.params.invoiceReference),
  }));
  r.get(
    '/invoices/:invoiceReference/pdf',
    { config: op, schema: { params: Ref('invoiceReference') } },
    async (req, reply) => {
      const { number, pdf } = await s.billing.invoicePdf(null, req.params.invoiceReference);
      return reply.type('application/pdf').header('content-disposition', `inline; filename="${number}.pdf"`).send(pdf);
    },
  );
  r.get(
    '/invoices/:invoiceReference/ubl',
    { config: op, schema: { params: Ref('invoiceReference') } },
    async (req, reply) => {
      const { number, xml } = await s.billing.invoiceUbl(null, req.params.invoiceReference);
      return reply
        .type('application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="${number}.xml"`)
        .send(xml);
    },
  );
  r.post(
    '/invoices/:invoiceReference/credit-notes',
    {
      config: op,
      schema: {
        params: Ref('invoiceReference'),
        body: Strict({ reason: Reason, net: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })) }),
      },
    },
    async (req) => s.billing.issueCreditNote(req.params.invoiceReference, req.body),
  );
  r.post(
    '/invoices/:invoiceReference/price-corrections',
    {
      config: op,
      schema: {
        params: Ref('invoiceReference'),
        body: Strict({
          line: Type.Integer({ minimum: 1, maximum: 10_000, description: 'The invoice line, numbered from 1' }),
          unitPrice: Type.Integer({
            minimum: 0,
            maximum: 1_000_000_000,
            description: 'The corrected unit price, EUR cents',
          }),
          reason: Reason,
        }),
      },
    },
    async (req) => s.billing.correctPrice(req.params.invoiceReference, req.body),
  );
  taxDetailsRoutes(app, s);
}

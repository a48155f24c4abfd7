import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  Cents,
  Nullable,
  Open,
  Page,
  PageQuery,
  Reference,
  Strict,
  Timestamp,
  Type,
  errors,
} from '../../platform/http/schemas.ts';
import type { BillingService } from './service.ts';

const tags = ['Billing'];
const AccountParams = Strict({ accountReference: Type.String({ maxLength: 200 }) });
const InvoiceParams = Strict({
  accountReference: Type.String({ maxLength: 200 }),
  invoiceReference: Type.String({ maxLength: 200 }),
});

const Payment = Nullable(
  Open(
    {
      status: Type.Union(
        [Type.Literal('open'), Type.Literal('partially_paid'), Type.Literal('paid'), Type.Literal('overdue')],
        {
          description:
            '`paid`: nothing left to pay; `overdue`: something left after `due`; `partially_paid`: some paid before `due`; `open`: nothing paid, not yet due',
        },
      ),
      paid: Cents,
      credited: { ...Cents, description: 'EUR cents credited by credit notes' },
      outstanding: { ...Cents, description: 'EUR cents left to pay' },
    },
    { description: 'The payment state; null on a credit note, which lowers the invoice it corrects' },
  ),
);

const Invoice = Open({
  reference: Reference('Invoice'),
  kind: Type.Union([Type.Literal('invoice'), Type.Literal('credit_note')]),
  number: Type.String({ description: '`INV-<year>-<6 digits>` or, for a credit note, `CN-<year>-<6 digits>`' }),
  accountReference: Reference('Account'),
  correctsInvoiceReference: Nullable(Type.String({ description: 'The invoice a credit note corrects' })),
  periodStart: Type.String({ format: 'date' }),
  periodEnd: Type.String({ format: 'date', description: 'The first day after the period' }),
  issued: Timestamp,
  due: Timestamp,
  vatTreatment: Type.String(),
  net: Cents,
  vat: Cents,
  total: Cents,
  lines: Type.Array(Open({ description: Type.String(), netCents: Cents })),
  reason: Nullable(Type.String()),
  payment: Payment,
});

const LedgerEntry = Open({
  reference: Reference('Ledgerentry'),
  kind: Type.Union([
    Type.Literal('opening'),
    Type.Literal('charge'),
    Type.Literal('refund'),
    Type.Literal('payment'),
    Type.Literal('adjustment'),
  ]),
  amount: { ...Cents, description: 'EUR cents: charges negative, refunds and payments positive' },
  description: Type.String(),
  orderReference: Nullable(Type.String()),
  claimReference: Nullable(Type.String()),
  simulated: Type.Boolean({
    description: 'Test environment: what would have been booked in production; not in the balance, never invoiced',
  }),
  invoiceReference: Nullable(Type.String({ description: 'The invoice or credit note the entry is on' })),
  created: Timestamp,
});

const TestFigures = {
  simulated: Type.Optional(
    Open(
      {
        note: Type.String(),
        months: Type.Array(Open({ month: Type.String(), net: Cents, entries: Type.Integer() })),
      },
      {
        description:
          'Test environment only: what the simulated entries would add up to per month (net, before VAT). Nothing here is ever invoiced.',
      },
    ),
  ),
};

/** Partner API: an account's own invoices and ledger, read-only, within the key's organization. */
export function billingRoutes(app: FastifyInstance, s: { billing: BillingService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const org = (req: { principal: { organizationId: string } }) => req.principal.organizationId;

  r.get(
    '/accounts/:accountReference/invoices',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listInvoices',
        tags,
        summary: "The account's invoices and credit notes, newest first, with their payment state",
        params: AccountParams,
        querystring: Strict(PageQuery),
        response: { 200: Open({ ...Page('invoices', Invoice).properties, ...TestFigures }), ...errors(404) },
      },
    },
    async (req) => s.billing.partnerInvoices(org(req), req.params.accountReference, req.query),
  );
  r.get(
    '/accounts/:accountReference/invoices/:invoiceReference',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getInvoice',
        tags,
        summary: 'One invoice or credit note of the account, as issued, with its payment state',
        params: InvoiceParams,
        response: { 200: Open({ invoice: Invoice }), ...errors(404) },
      },
    },
    async (req) => ({
      invoice: await s.billing.accountInvoice(org(req), req.params.accountReference, req.params.invoiceReference),
    }),
  );
  downloadRoutes(app, s);
  r.get(
    '/accounts/:accountReference/ledger',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listLedgerEntries',
        tags,
        summary: "The account's ledger, newest first, and the balance it sums to",
        params: AccountParams,
        querystring: Strict(PageQuery),
        response: {
          200: Open({
            balance: { ...Cents, description: 'EUR cents; negative when money is owed' },
            wouldBeBalance: Type.Optional(
              Type.Integer({
                description:
                  'Test environment only: the balance in EUR cents as it would be if the simulated entries were booked',
              }),
            ),
            ...Page('entries', LedgerEntry).properties,
          }),
          ...errors(404),
        },
      },
    },
    async (req) => s.billing.ledger(org(req), req.params.accountReference, req.query),
  );
}

/** The two downloads of a document: its PDF and its UBL e-invoice, each the same on every download. */
const DOWNLOADS = [
  {
    suffix: 'pdf',
    operationId: 'getInvoicePdf',
    summary: 'The invoice or credit note as a PDF: the same document on every download',
    description: 'The PDF',
    mime: 'application/pdf',
    type: 'application/pdf',
    extension: 'pdf',
    load: async (b: BillingService, orgId: string, account: string, ref: string) => {
      const { number, pdf } = await b.accountInvoicePdf(orgId, account, ref);
      return { number, body: pdf as Buffer | string };
    },
  },
  {
    suffix: 'ubl',
    operationId: 'getInvoiceUbl',
    summary: 'The invoice or credit note as a UBL 2.1 e-invoice (Peppol BIS Billing 3.0, EN 16931)',
    description: 'The UBL 2.1 XML document',
    mime: 'application/xml',
    type: 'application/xml; charset=utf-8',
    extension: 'xml',
    load: async (b: BillingService, orgId: string, account: string, ref: string) => {
      await b.accountInvoice(orgId, account, ref);
      const { number, xml } = await b.invoiceUbl(orgId, ref);
      return { number, body: xml as Buffer | string };
    },
  },
] as const;

function downloadRoutes(app: FastifyInstance, s: { billing: BillingService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const d of DOWNLOADS) {
    r.get(
      `/accounts/:accountReference/invoices/:invoiceReference/${d.suffix}`,
      {
        config: { access: 'read' },
        schema: {
          operationId: d.operationId,
          tags,
          summary: d.summary,
          params: InvoiceParams,
          response: {
            200: {
              description: d.description,
              content: { [d.mime]: { schema: { type: 'string', format: 'binary' } } },
            } as never,
            ...errors(404),
          },
        },
      },
      async (req, reply) => {
        const { number, body } = await d.load(
          s.billing,
          req.principal.organizationId,
          req.params.accountReference,
          req.params.invoiceReference,
        );
        return reply
          .type(d.type)
          .header('content-disposition', `attachment; filename="${number}.${d.extension}"`)
          .header('cache-control', 'private, no-store')
          .send(body);
      },
    );
  }
}

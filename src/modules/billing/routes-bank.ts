import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PageQuery, Strict, Type } from '../../platform/http/schemas.ts';
import type { BillingService } from './service.ts';

/** A month of a busy account's statement is a few megabytes; more is refused before it is read. */
export const BANK_STATEMENT_MAX_BYTES = 20 * 1024 * 1024;
const XML_TYPES = ['application/xml', 'text/xml'];
const Ref = Strict({ paymentReference: Type.String({ maxLength: 200 }) });

/** Operator API of bank statements (camt.053) and the payments they bring. */
export function bankOperatorRoutes(app: FastifyInstance, s: { billing: BillingService }): void {
  app.register(async (scope) => {
    // Own scope: the XML body parser applies to the statement upload only.
    scope.addContentTypeParser(XML_TYPES, { parseAs: 'string' }, (_req, body, done) => done(null, body));
    const r = scope.withTypeProvider<TypeBoxTypeProvider>();
    const op = { access: 'operator' as const };
    r.post('/bank-statements', { config: op, bodyLimit: BANK_STATEMENT_MAX_BYTES }, async (req) =>
      s.billing.importStatement(typeof req.body === 'string' ? req.body : '', 'operator API'),
    );
    r.get(
      '/bank-payments',
      {
        config: op,
        schema: {
          querystring: Strict({
            ...PageQuery,
            status: Type.Optional(
              Type.Union(['matched', 'unmatched', 'assigned', 'dismissed'].map((v) => Type.Literal(v))),
            ),
          }),
        },
      },
      async (req) =>
        s.billing.bankPayments(req.query.status ?? null, {
          limit: req.query.limit,
          cursor: req.query.cursor,
        }),
    );
    r.post(
      '/bank-payments/:paymentReference/assign',
      {
        config: op,
        schema: {
          params: Ref,
          body: Strict({
            invoiceReference: Type.Optional(Type.String({ maxLength: 200 })),
            accountReference: Type.Optional(Type.String({ maxLength: 200 })),
          }),
        },
      },
      async (req) => ({
        payment: await s.billing.assignBankPayment(req.params.paymentReference, req.body, 'operator API'),
      }),
    );
    r.post(
      '/bank-payments/:paymentReference/dismiss',
      { config: op, schema: { params: Ref, body: Strict({ note: Type.String({ minLength: 1, maxLength: 500 }) }) } },
      async (req) => ({
        payment: await s.billing.dismissBankPayment(req.params.paymentReference, req.body.note, 'operator API'),
      }),
    );
  });
}

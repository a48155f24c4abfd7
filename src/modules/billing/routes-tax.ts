import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Nullable, Strict, Type } from '../../platform/http/schemas.ts';
import { AddressIn } from '../organization/schemas.ts';
import type { BillingService } from './service.ts';

const Ref = (name: string) => Strict({ [name]: Type.String({ maxLength: 200 }) });
const Reason = Type.String({ minLength: 1, maxLength: 500 });
const TaxDetails = Strict({
  legalEntity: Strict({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    vatNumber: Type.Optional(Nullable(Type.String({ maxLength: 30 }))),
  }),
  billingAddress: AddressIn,
});

/** Operator API of tax details: what decides an account's VAT, set by an operator or approved from a partner's request. */
export function taxDetailsRoutes(app: FastifyInstance, s: { billing: BillingService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const op = { access: 'operator' as const };
  r.get(
    '/accounts/:accountReference/tax-details',
    { config: op, schema: { params: Ref('accountReference') } },
    async (req) => ({ taxDetails: await s.billing.taxDetails(null, req.params.accountReference) }),
  );
  r.put(
    '/accounts/:accountReference/tax-details',
    { config: op, schema: { params: Ref('accountReference'), body: TaxDetails } },
    async (req) => ({
      taxDetails: await s.billing.setTaxDetails(
        req.params.accountReference,
        {
          legalEntityName: req.body.legalEntity.name,
          vatNumber: req.body.legalEntity.vatNumber ?? null,
          billingAddress: req.body.billingAddress,
        },
        'operator API',
      ),
    }),
  );
  r.get('/tax-requests', { config: op }, async () => ({ requests: await s.billing.pendingTaxChanges() }));
  r.post(
    '/tax-requests/:requestReference/approve',
    { config: op, schema: { params: Ref('requestReference'), body: Strict({ note: Type.Optional(Reason) }) } },
    async (req) => s.billing.approveTaxChange(req.params.requestReference, 'operator API', req.body.note ?? null),
  );
  r.post(
    '/tax-requests/:requestReference/reject',
    { config: op, schema: { params: Ref('requestReference'), body: Strict({ note: Reason }) } },
    async (req) => s.billing.rejectTaxChange(req.params.requestReference, 'operator API', req.body.note),
  );
}

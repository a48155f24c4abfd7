import type { Static } from 'typebox';
import { badRequest } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { newReference } from '../../platform/ids.ts';
import { type OrganizationContext, mustExist } from './context.ts';
import { organizationRepo as repo } from './repo.ts';
import type { CreateAccount } from './schemas.ts';
import { accountView } from './views.ts';

/** Accounts: who pays for a store's orders. */
export function accountUseCases({ deps, requireOrganization }: OrganizationContext) {
  const { db, clock, cursors } = deps;
  const view = accountView(deps.config.env);
  const account = async (orgId: string, ref: string) =>
    view(await mustExist('Account', ref, (id) => repo.account(db, orgId, id)));

  return {
    async listAccounts(orgId: string, page: PageRequest) {
      return listPage(cursors, page, { plural: 'accounts', load: (ks) => repo.accounts(db, orgId, ks), item: view });
    },
    account,
    async createAccount(orgId: string, input: Static<typeof CreateAccount>) {
      await requireOrganization(orgId);
      const id = newReference('Account');
      await db.tx((tx) =>
        repo.insertAccount(tx, {
          id,
          organization_id: orgId,
          name: input.name,
          balance_cents: input.balance ?? 0,
          prepaid: input.prepaid ?? false,
          payment_term_days: input.paymentTermDays ?? 14,
          legal_entity_name: input.legalEntity.name,
          vat_number: input.legalEntity.vatNumber ?? null,
          billing_address: input.billingAddress,
          created_at: clock.now(),
        }),
      );
      return account(orgId, id);
    },
    /**
     * Dashboard: the account's name and billing address within its country. Balance and payment
     * terms are not the partner's to change, nor the fields that decide VAT (legal entity, VAT
     * number, billing country): those change through the billing module's tax details.
     */
    async updateAccount(orgId: string, ref: string, input: { name?: string; billingAddress?: Record<string, string> }) {
      const current = await mustExist('Account', ref, (id) => repo.account(db, orgId, id));
      const patch: Parameters<typeof repo.updateAccount>[3] = {};
      if (input.name !== undefined) patch.name = input.name;
      if (input.billingAddress !== undefined) {
        if (input.billingAddress.countryCode !== current.billing_address.countryCode)
          throw badRequest('Billing address: the country decides VAT; it changes through a tax details request');
        patch.billing_address = input.billingAddress;
      }
      await repo.updateAccount(db, orgId, ref, patch);
      return account(orgId, ref);
    },
  };
}

import type { Static } from 'typebox';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import { ApiError, badRequest, mustFind } from '../../platform/errors.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import type { OrganizationService } from '../organization/service.ts';
import type { CreateAccount } from '../organization/schemas.ts';
import { type BillingAccountRow, accountsRepo } from './repo.ts';
import { type TaxDetails, type TaxRequestRow, type VatCheckRecord, type VatStatus, taxRepo } from './repo-tax.ts';
import type { VatNumberChecker } from './vat-checker.ts';
import { VAT_PREFIXES, checkVatNumber } from './vat-number.ts';

export interface TaxDetailsInput {
  legalEntityName: string;
  /** As typed; null or empty: none. */
  vatNumber: string | null;
  billingAddress: Record<string, string>;
}

export interface TaxDetailsDeps {
  db: Db;
  clock: Clock;
  vatChecker: VatNumberChecker;
  organization: Pick<OrganizationService, 'createAccount'>;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const sameAddress = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

export const toTaxRequest = (r: TaxRequestRow) => ({
  reference: r.id,
  accountReference: r.account_id,
  status: r.status,
  legalEntity: { name: r.legal_entity_name, vatNumber: r.vat_number },
  billingAddress: r.billing_address,
  check: { status: r.check_status, detail: r.check_detail },
  requestedBy: r.requested_by,
  requested: r.requested_at.toISOString(),
  decidedBy: r.decided_by,
  decided: iso(r.decided_at),
  note: r.decision_note,
});

/** The check as an account keeps it: what decides reverse charge. */
export const toVatCheck = (a: Pick<BillingAccountRow, keyof VatCheckRecord>) => ({
  status: a.vat_status,
  checked: iso(a.vat_checked_at),
  checkedBy: a.vat_checked_by,
  detail: a.vat_check_detail,
});

/** Form, check digits and the billing country first (400, nothing written); then the live check. */
export async function checkTaxDetails(
  vatChecker: VatNumberChecker,
  input: TaxDetailsInput,
): Promise<TaxDetails & { status: VatStatus; detail: string }> {
  const base = { legal_entity_name: input.legalEntityName.trim(), billing_address: input.billingAddress };
  if (!/^[A-Z]{2}$/.test(input.billingAddress.countryCode ?? ''))
    throw badRequest('Billing address: the country code (two letters, e.g. NL) decides VAT and is required');
  const typed = input.vatNumber?.trim() ?? '';
  if (!typed) return { ...base, vat_number: null, status: 'unchecked', detail: 'no VAT number' };
  const v = checkVatNumber(typed);
  if (!v.valid) throw badRequest(`VAT number: ${v.message}`);
  const country = (input.billingAddress.countryCode ?? '').toUpperCase();
  if (VAT_PREFIXES[v.prefix] !== country && !(v.prefix === 'XI' && country === 'GB'))
    throw badRequest(
      `VAT number: ${v.vatNumber} is a ${v.prefix} number, the billing address is in ${country || 'no country'}; the VAT number belongs to the billing address's member state`,
    );
  const live = await vatChecker.check(v.prefix, v.number);
  const detail =
    live.status === 'unavailable'
      ? `form and check digits valid; ${live.reason}`
      : `form and check digits valid; VIES: ${live.status === 'valid' ? 'registered' : 'not registered'}${live.status === 'valid' && live.name ? ` to ${live.name}` : ''}${live.status === 'valid' && live.requestIdentifier ? ` (consultation ${live.requestIdentifier})` : ''}`;
  return {
    ...base,
    vat_number: v.vatNumber,
    status: live.status === 'unavailable' ? 'unchecked' : live.status,
    detail,
  };
}

/**
 * The check an operator's decision records: the register's answer where there is one; without one
 * (no live check configured, VIES down) the operator's approval is the confirmation.
 */
export const decidedCheck = (
  c: { vat_number: string | null; status: VatStatus; detail: string },
  by: string,
  at: Date,
): VatCheckRecord => ({
  vat_status: c.vat_number === null ? 'unchecked' : c.status === 'unchecked' ? 'valid' : c.status,
  vat_checked_at: at,
  vat_checked_by: by,
  vat_check_detail: c.status === 'unchecked' && c.vat_number ? `${c.detail}; confirmed by ${by}` : c.detail,
});

/**
 * Who may set the fields that decide an account's VAT (legal entity name, VAT number, billing
 * country): an operator, directly or by approving a partner's request. A partner's change is a
 * pending request; the account and its invoices keep the approved details until then. Every VAT
 * number is checked for its member state's form and check digits, then live (VIES) when configured.
 */
export function taxDetailsUseCases(deps: TaxDetailsDeps) {
  const { db, clock } = deps;

  const accountOf = async (orgId: string | null, ref: string) =>
    mustFind(isReference('Account', ref) ? await accountsRepo.account(db, orgId, ref) : null, 'Account', ref);

  const sameDetails = (a: BillingAccountRow, d: TaxDetails) =>
    a.legal_entity_name === d.legal_entity_name &&
    a.vat_number === d.vat_number &&
    (a.billing_address.countryCode ?? '').toUpperCase() === (d.billing_address.countryCode ?? '').toUpperCase();

  async function requestFor(ref: string): Promise<TaxRequestRow> {
    const r = isReference('Taxrequest', ref) ? await taxRepo.requestForUpdate(db, ref) : null;
    return mustFind(r, 'Tax details request', ref);
  }

  /** An account's tax details, their check, its pending request and the last decision. `orgId` null: operator. */
  async function taxDetails(orgId: string | null, accountRef: string) {
    const acc = await accountOf(orgId, accountRef);
    const [pending, last] = await Promise.all([
      taxRepo.pendingOf(db, orgId, acc.id),
      taxRepo.lastDecidedOf(db, orgId, acc.id),
    ]);
    return {
      accountReference: acc.id,
      legalEntity: { name: acc.legal_entity_name, vatNumber: acc.vat_number },
      billingCountry: acc.billing_address.countryCode ?? null,
      vatCheck: toVatCheck(acc),
      pending: pending ? toTaxRequest(pending) : null,
      lastDecision: last ? toTaxRequest(last) : null,
    };
  }

  return {
    /** Operator (API, console, CLI, demo seed): an account whose tax details are checked as it opens. */
    async openAccount(orgId: string, input: Static<typeof CreateAccount>, by: string) {
      const c = await checkTaxDetails(deps.vatChecker, {
        legalEntityName: input.legalEntity.name,
        vatNumber: input.legalEntity.vatNumber ?? null,
        billingAddress: input.billingAddress,
      });
      const account = await deps.organization.createAccount(orgId, {
        ...input,
        legalEntity: { name: c.legal_entity_name, ...(c.vat_number ? { vatNumber: c.vat_number } : {}) },
      });
      await taxRepo.setTaxDetails(db, account.reference, c, decidedCheck(c, by, clock.now()));
      return account;
    },
    /** Operator: sets the tax details at once, with the check. */
    async setTaxDetails(accountRef: string, input: TaxDetailsInput, by: string) {
      const acc = await accountOf(null, accountRef);
      const c = await checkTaxDetails(deps.vatChecker, input);
      await taxRepo.setTaxDetails(db, acc.id, c, decidedCheck(c, by, clock.now()));
      return taxDetails(null, acc.id);
    },
    /**
     * Partner: the tax details as typed in the account form. Unchanged ones change nothing; changed
     * ones become the account's pending request (replacing an earlier one). `requested`: whether one was made.
     */
    async requestTaxChange(orgId: string, accountRef: string, input: TaxDetailsInput, by: string) {
      const acc = await accountOf(orgId, accountRef);
      const c = await checkTaxDetails(deps.vatChecker, input);
      if (sameDetails(acc, c)) return { requested: false };
      const pending = await taxRepo.pendingOf(db, orgId, acc.id);
      if (pending && sameDetails({ ...acc, ...pending }, c) && sameAddress(pending.billing_address, c.billing_address))
        return { requested: true };
      await db.tx((tx) =>
        taxRepo.insertRequest(tx, {
          id: newReference('Taxrequest'),
          organization_id: acc.organization_id,
          account_id: acc.id,
          ...c,
          check_status: c.status,
          check_detail: c.detail,
          requested_by: by,
          requested_at: clock.now(),
        }),
      );
      return { requested: true };
    },
    /** Operator: applies a pending request, checking its VAT number again now. */
    async approveTaxChange(requestRef: string, by: string, note: string | null = null) {
      const pending = await requestFor(requestRef);
      const c = await checkTaxDetails(deps.vatChecker, {
        legalEntityName: pending.legal_entity_name,
        vatNumber: pending.vat_number,
        billingAddress: pending.billing_address,
      });
      return db.tx(async (tx) => {
        const r = (await taxRepo.requestForUpdate(tx, pending.id))!;
        if (r.status !== 'pending')
          throw new ApiError('tax_request_decided', `Request ${r.id} is ${r.status} already; nothing was changed`);
        await taxRepo.setTaxDetails(tx, r.account_id, c, decidedCheck(c, by, clock.now()));
        await taxRepo.decide(tx, r.id, { status: 'approved', by, at: clock.now(), note });
        return { accountReference: r.account_id };
      });
    },
    /** Operator: refuses a pending request with a reason the partner sees; the account is unchanged. */
    async rejectTaxChange(requestRef: string, by: string, note: string) {
      return db.tx(async (tx) => {
        const r = mustFind(
          isReference('Taxrequest', requestRef) ? await taxRepo.requestForUpdate(tx, requestRef) : null,
          'Tax details request',
          requestRef,
        );
        if (r.status !== 'pending')
          throw new ApiError('tax_request_decided', `Request ${r.id} is ${r.status} already; nothing was changed`);
        await taxRepo.decide(tx, r.id, { status: 'rejected', by, at: clock.now(), note });
        return { accountReference: r.account_id };
      });
    },
    /** The pending requests of every account, oldest first. */
    async pendingTaxChanges(limit = 100) {
      return (await taxRepo.pending(db, limit)).map(toTaxRequest);
    },
    taxDetails,
  };
}

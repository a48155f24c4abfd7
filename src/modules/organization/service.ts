import type { Static } from 'typebox';
import { ReadCache } from '../../platform/cache.ts';
import type { Executor } from '../../platform/db/index.ts';
import { pgConstraint, pgErrorCode, PG_UNIQUE_VIOLATION } from '../../platform/db/index.ts';
import { ApiError, badRequest, conflict, notFound, mustFind } from '../../platform/errors.ts';
import { type KeyResolver, type RateLimitOverrides, generateApiKey, hashSecret } from '../../platform/http/auth.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { checkCallbackUrl } from '../../platform/http/targets.ts';
import {
  type AccountRow,
  type ApiKeyRow,
  type IntegratorRow,
  type BrandRow,
  type OrganizationRow,
  type StoreRow,
  organizationLookups,
  organizationRepo as repo,
} from './repo.ts';
import type { CreateAccount, CreateBrand, CreateStore, UpdateStore } from './schemas.ts';
import type { OrganizationDeps } from './deps.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toOrganization = (o: OrganizationRow) => ({
  reference: o.id,
  name: o.name,
  created: o.created_at.toISOString(),
});
export const accountView = (env: string) => (a: AccountRow) => ({
  reference: a.id,
  name: a.name,
  balance: a.balance_cents,
  /** Prepaid accounts pay before production; the others are invoiced monthly, due in paymentTermDays. */
  prepaid: a.prepaid,
  paymentTermDays: a.payment_term_days,
  /** Test environment only: the balance as it would be if its orders were charged (they never are); null in production. */
  wouldBeBalance: env === 'test' ? a.balance_cents + a.simulated_balance_cents : null,
  legalEntity: { name: a.legal_entity_name, vatNumber: a.vat_number },
  billingAddress: a.billing_address,
  created: a.created_at.toISOString(),
});
export const toBrand = (b: BrandRow) => ({
  reference: b.id,
  name: b.name,
  logoUrl: b.logo_url,
  primaryColor: b.primary_color,
  secondaryColor: b.secondary_color,
  customerService: {
    email: b.customer_service.email ?? null,
    phonenumber: b.customer_service.phonenumber ?? null,
    url: b.customer_service.url ?? null,
  },
  created: b.created_at.toISOString(),
});
export const toStore = (s: StoreRow) => ({
  reference: s.id,
  name: s.name,
  code: s.code,
  legacyCode: s.code,
  integration: s.integration,
  accountReference: s.account_id,
  defaultBrandReference: s.default_brand_id,
  combinedAddress: s.combined_address,
  callbackUrl: s.callback_url,
  created: s.created_at.toISOString(),
});
export const toApiKey = (k: ApiKeyRow) => ({
  reference: k.id,
  name: k.name,
  hint: k.hint,
  readOnly: k.read_only,
  integratorReference: k.integrator_id,
  created: k.created_at.toISOString(),
  lastUsed: iso(k.last_used_at),
  revoked: iso(k.revoked_at),
});

export const toIntegrator = (i: Omit<IntegratorRow, 'seq'>) => ({
  reference: i.id,
  code: i.code,
  name: i.name,
  created: i.created_at.toISOString(),
});

export type OrganizationService = ReturnType<typeof organizationService>;
/** A store and a brand as other modules get them from this service (orders, shipments). */
export type StoreRecord = StoreRow;
export type BrandRecord = BrandRow;

/** The `ChangeFeed` topic of store changes. */
const STORES_TOPIC = 'stores';
/** `organization:<id>`, announced by a trigger (migration 0019). */
const ORGANIZATION_TOPIC = 'organization';

export function organizationService(deps: OrganizationDeps) {
  const { db, clock, cursors } = deps;
  // Every order reads its store; stores change rarely, and every change is announced.
  const stores = new ReadCache<StoreRow>({ maxEntries: 20_000, maxAgeMs: 60_000 });
  deps.changes.on(STORES_TOPIC, () => stores.clear());
  // Every GET /v2/organization and many pages read the organization: kept per process, dropped on
  // every node when a trigger (migration 0019) announces `organization:<id>` on commit.
  const organizations = new ReadCache<OrganizationRow>({ maxEntries: 20_000, maxAgeMs: 10 * 60_000 });
  deps.changes.on(ORGANIZATION_TOPIC, (id) => (id ? organizations.delete(id) : organizations.clear()));
  const organizationRow = (id: string) => organizations.getOne(id, () => repo.organization(db, id));

  async function mustExist<T>(resource: string, ref: string, load: (id: string) => Promise<T | null>): Promise<T> {
    if (!isReference(resource, ref)) throw notFound(resource, ref);
    return mustFind(await load(ref), resource, ref);
  }

  const checkCallback = (url: string | null | undefined) => {
    if (url) checkCallbackUrl(url, { allowPrivate: deps.config.allowPrivateTargets, field: 'callbackUrl' });
  };

  const service = {
    keyResolver: {
      resolve: (hash: string) => repo.principalByHash(db, hash),
      touch: (keyId: string, at: Date) => repo.touchApiKey(db, keyId, at),
    } satisfies KeyResolver,

    async organization(orgId: string) {
      return toOrganization(await mustExist('Organization', orgId, organizationRow));
    },
    async organizationRow(orgId: string) {
      return mustExist('Organization', orgId, organizationRow);
    },
    /** The organization, or null when there is none with this reference. */
    findOrganization: async (orgId: string) => (isReference('Organization', orgId) ? organizationRow(orgId) : null),
    async listOrganizations(page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'organizations',
        load: (ks) => repo.organizations(db, ks),
        item: toOrganization,
      });
    },
    async createOrganization(input: { name: string; rendertokenLimit?: number }) {
      const id = newReference('Organization');
      await repo.insertOrganization(db, {
        id,
        name: input.name,
        rendertokenLimit: input.rendertokenLimit ?? 1000,
        createdAt: clock.now(),
      });
      return service.organization(id);
    },

    async listAccounts(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'accounts',
        load: (ks) => repo.accounts(db, orgId, ks),
        item: accountView(deps.config.env),
      });
    },
    async account(orgId: string, ref: string) {
      return accountView(deps.config.env)(await mustExist('Account', ref, (id) => repo.account(db, orgId, id)));
    },
    async createAccount(orgId: string, input: Static<typeof CreateAccount>) {
      await service.organizationRow(orgId);
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
      return service.account(orgId, id);
    },

    async listBrands(orgId: string, page: PageRequest) {
      return listPage(cursors, page, { plural: 'brands', load: (ks) => repo.brands(db, orgId, ks), item: toBrand });
    },
    async brand(orgId: string, ref: string) {
      return toBrand(await mustExist('Brand', ref, (id) => repo.brand(db, orgId, id)));
    },
    async brandRow(orgId: string, ref: string) {
      return mustExist('Brand', ref, (id) => repo.brand(db, orgId, id));
    },
    /** The brand, or null when it does not exist or belongs to another organization. */
    findBrand: async (orgId: string, ref: string): Promise<BrandRecord | null> =>
      isReference('Brand', ref) ? repo.brand(db, orgId, ref) : null,
    async createBrand(orgId: string, input: Static<typeof CreateBrand>) {
      await service.organizationRow(orgId);
      const id = newReference('Brand');
      await repo.insertBrand(db, {
        id,
        organization_id: orgId,
        name: input.name,
        logo_url: input.logoUrl ?? null,
        primary_color: (input.primaryColor ?? '#222222').toLowerCase(),
        secondary_color: (input.secondaryColor ?? '#f5f5f5').toLowerCase(),
        customer_service: input.customerService ?? {},
        created_at: clock.now(),
      });
      return service.brand(orgId, id);
    },

    /** Dashboard (issue 8): the only place a brand changes. */
    async updateBrand(
      orgId: string,
      ref: string,
      input: Partial<Static<typeof CreateBrand>> & { logoUrl?: string | null },
    ) {
      await service.brandRow(orgId, ref);
      const patch: Parameters<typeof repo.updateBrand>[3] = {};
      if (input.name !== undefined) patch.name = input.name;
      if (input.logoUrl !== undefined) patch.logo_url = input.logoUrl;
      if (input.primaryColor !== undefined) patch.primary_color = input.primaryColor.toLowerCase();
      if (input.secondaryColor !== undefined) patch.secondary_color = input.secondaryColor.toLowerCase();
      if (input.customerService !== undefined)
        patch.customer_service = Object.fromEntries(
          Object.entries(input.customerService).filter(([, v]) => v),
        ) as Record<string, string>;
      await repo.updateBrand(db, orgId, ref, patch);
      return service.brand(orgId, ref);
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
      return service.account(orgId, ref);
    },

    async listStores(orgId: string, page: PageRequest) {
      return listPage(cursors, page, { plural: 'stores', load: (ks) => repo.stores(db, orgId, ks), item: toStore });
    },
    async store(orgId: string, ref: string) {
      return toStore(await service.storeRow(orgId, ref));
    },
    /** The store as GET shows it, or null when it does not exist or belongs to another organization. */
    async findStore(orgId: string, ref: string) {
      const row = isReference('Store', ref) ? await repo.store(db, orgId, ref) : null;
      return row ? toStore(row) : null;
    },
    async storeRow(orgId: string, ref: string) {
      return mustExist('Store', ref, (id) => repo.store(db, orgId, id));
    },
    /** Orders (issue 4): the store inside the caller's transaction, and its next V1 order number. */
    storeRowIn: (ex: Executor, orgId: string, storeId: string) => repo.store(ex, orgId, storeId),
    /** The same outside a transaction, from this process's cache (`order_counter` is not kept current). */
    cachedStoreRow: (orgId: string, storeId: string) =>
      stores.getOne(`${orgId}/${storeId}`, () => repo.store(db, orgId, storeId)),
    nextOrderNumber: (ex: Executor, storeId: string) => repo.nextOrderNumber(ex, storeId),
    takeOrderNumbers: (ex: Executor, counts: Map<string, number>) => repo.takeOrderNumbers(ex, counts),
    async createStore(orgId: string, input: Static<typeof CreateStore>) {
      await service.organizationRow(orgId);
      if (!isReference('Account', input.accountReference) || !(await repo.account(db, orgId, input.accountReference))) {
        throw badRequest('body.accountReference is not an account of this organization');
      }
      if (
        input.defaultBrandReference &&
        !(
          isReference('Brand', input.defaultBrandReference) &&
          (await repo.brand(db, orgId, input.defaultBrandReference))
        )
      ) {
        throw badRequest('body.defaultBrandReference is not a brand of this organization');
      }
      checkCallback(input.callbackUrl);
      const id = newReference('Store');
      try {
        await repo.insertStore(db, {
          id,
          organization_id: orgId,
          account_id: input.accountReference,
          name: input.name,
          code: input.code,
          integration: input.integration,
          default_brand_id: input.defaultBrandReference ?? null,
          combined_address: input.combinedAddress ?? null,
          callback_url: input.callbackUrl || null,
          created_at: clock.now(),
        });
      } catch (err) {
        if (pgErrorCode(err) === PG_UNIQUE_VIOLATION && pgConstraint(err)?.includes('code'))
          throw conflict('store_code_in_use', `Store code ${input.code} is already in use`);
        throw err;
      }
      return service.store(orgId, id);
    },
    async updateStore(orgId: string, ref: string, input: Static<typeof UpdateStore>) {
      await service.storeRow(orgId, ref);
      if (
        input.defaultBrandReference &&
        !(
          isReference('Brand', input.defaultBrandReference) &&
          (await repo.brand(db, orgId, input.defaultBrandReference))
        )
      ) {
        throw badRequest('body.defaultBrandReference is not a brand of this organization');
      }
      checkCallback(input.callbackUrl);
      const patch: Parameters<typeof repo.updateStore>[3] = {};
      if (input.name !== undefined) patch.name = input.name;
      if (input.integration !== undefined) patch.integration = input.integration;
      if (input.callbackUrl !== undefined) patch.callback_url = input.callbackUrl || null;
      if (input.defaultBrandReference !== undefined) patch.default_brand_id = input.defaultBrandReference;
      if (input.combinedAddress !== undefined) patch.combined_address = input.combinedAddress;
      await db.tx(async (tx) => {
        await repo.updateStore(tx, orgId, ref, patch);
        await deps.changes.announce(tx, STORES_TOPIC);
      });
      deps.changes.changed(STORES_TOPIC);
      return service.store(orgId, ref);
    },

    async listApiKeys(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'apiKeys',
        scope: 'apikeys',
        load: (ks) => repo.apiKeys(db, orgId, ks),
        item: toApiKey,
      });
    },
    /** The secret is returned here once and never stored: only its hash is. */
    /** Operator: a partner app acting for many organizations, known on orders by its code. */
    async createIntegrator(input: { code: string; name: string }) {
      const row = { id: newReference('Integrator'), code: input.code, name: input.name, created_at: clock.now() };
      if (!(await repo.insertIntegrator(db, row)))
        throw conflict('integrator_code_in_use', `An integrator with code ${input.code} is already registered`);
      return { integrator: toIntegrator(row) };
    },
    async listIntegrators(page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'integrators',
        load: (ks) => repo.integrators(db, ks),
        item: (i: IntegratorRow) => toIntegrator(i),
      });
    },
    /** `integrator` (operator only): its code or reference; orders created with the key record its code. */
    async createApiKey(orgId: string, input: { name: string; readOnly?: boolean; integrator?: string }) {
      await service.organizationRow(orgId);
      const integrator = input.integrator === undefined ? null : await repo.integrator(db, input.integrator);
      if (input.integrator !== undefined && !integrator)
        throw badRequest(`body.integrator ${input.integrator} is neither an integrator code nor a reference`);
      const secret = generateApiKey(deps.config.env);
      const id = newReference('Apikey');
      await repo.insertApiKey(db, {
        id,
        organizationId: orgId,
        name: input.name,
        hash: hashSecret(secret),
        hint: `${secret.slice(0, 12)}…`,
        readOnly: input.readOnly ?? false,
        createdAt: clock.now(),
        integratorId: integrator?.id ?? null,
      });
      const key = await mustExist('Apikey', id, (k) => repo.apiKey(db, orgId, k));
      return { apiKey: { ...toApiKey(key), secret } };
    },
    async revokeApiKey(orgId: string, ref: string) {
      await mustExist('Apikey', ref, (k) => repo.apiKey(db, orgId, k));
      await repo.revokeApiKey(db, orgId, ref, clock.now());
      deps.keys().evictKey(ref);
      return toApiKey((await repo.apiKey(db, orgId, ref))!);
    },

    storeByCode: (code: string) => organizationLookups.storeByCode(db, code),
    /**
     * What an operator may type for an organization: its reference, one of its store codes, or its
     * exact name. An ambiguous name is a 409 listing the candidates.
     */
    async resolveOrganization(given: string): Promise<{ reference: string; name: string }> {
      const byRef = isReference('Organization', given) ? await repo.organization(db, given) : null;
      const byCode = byRef ? null : await organizationLookups.storeByCode(db, given);
      const direct = byRef ?? (byCode ? await repo.organization(db, byCode.organization_id) : null);
      if (direct) return { reference: direct.id, name: direct.name };
      const named = await organizationLookups.organizationsNamed(db, given);
      if (named.length === 1) return { reference: named[0].id, name: named[0].name };
      if (named.length > 1)
        throw new ApiError(
          'ambiguous_name',
          `${named.length} organizations are named "${given}": ${named.map((o) => o.id).join(', ')}; give a reference`,
          { details: named.map((o) => ({ reference: o.id, name: o.name, created: o.created_at.toISOString() })) },
        );
      throw notFound('Organization with reference, store code or name', `"${given}"`);
    },
    /** A store of the organization by reference, code or exact name (ambiguous name: 409). */
    async resolveStore(orgId: string, given: string): Promise<{ reference: string; code: string; name: string }> {
      const pick = (st: StoreRow) => ({ reference: st.id, code: st.code, name: st.name });
      const byRef = isReference('Store', given) ? await repo.store(db, orgId, given) : null;
      if (byRef) return pick(byRef);
      const byCode = await organizationLookups.storeByCode(db, given);
      if (byCode && byCode.organization_id === orgId) return pick(byCode);
      const named = await organizationLookups.storesNamed(db, orgId, given);
      if (named.length === 1) return pick(named[0]);
      if (named.length > 1)
        throw new ApiError(
          'ambiguous_name',
          `${named.length} stores are named "${given}": ${named.map((x) => `${x.id} (${x.code})`).join(', ')}; give a reference or code`,
          { details: named.map(pick) },
        );
      throw notFound('Store with reference, code or name', `"${given}"`);
    },
    countOrganizations: () => organizationLookups.countOrganizations(db),
    /** Demo keys are re-issued by every seed run: their secrets are not kept anywhere. */
    async reissueKeys(orgId: string, names: string[]) {
      await organizationLookups.revokeKeysNamed(db, orgId, names, clock.now());
      deps.keys().evictOrganization(orgId);
    },

    async setRateLimits(orgId: string, limits: RateLimitOverrides | null) {
      await service.organizationRow(orgId);
      organizations.hold(orgId);
      await repo.setRateLimits(db, orgId, limits && Object.keys(limits).length ? limits : null);
      deps.keys().evictOrganization(orgId);
      return { rateLimits: limits };
    },
    async setRendertokenLimit(orgId: string, limit: number) {
      if (!Number.isInteger(limit) || limit < 0)
        throw new ApiError('invalid_request', 'limit must be a whole number ≥ 0');
      await service.organizationRow(orgId);
      organizations.hold(orgId);
      await repo.setRendertokenLimit(db, orgId, limit);
      return { rendertokenLimit: limit };
    },
  };
  return service;
}

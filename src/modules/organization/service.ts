import { ReadCache } from '../../platform/cache.ts';
import { ApiError } from '../../platform/errors.ts';
import type { KeyResolver, RateLimitOverrides } from '../../platform/http/auth.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { accountUseCases } from './accounts.ts';
import { apiKeyUseCases } from './api-keys.ts';
import { brandUseCases } from './brands.ts';
import { type OrganizationContext, mustExist } from './context.ts';
import type { OrganizationDeps } from './deps.ts';
import { type OrganizationRow, organizationLookups, organizationRepo as repo } from './repo.ts';
import { resolveUseCases } from './resolve.ts';
import { storeUseCases } from './stores.ts';
import { type OrganizationFacts, organizationFacts, toOrganization } from './views.ts';

export type OrganizationService = ReturnType<typeof organizationService>;
export type { BrandLook, OrganizationFacts, StoreFacts } from './views.ts';

/** `organization:<id>`, announced by a trigger (migration 0019). */
const ORGANIZATION_TOPIC = 'organization';

/** The organization module: organizations and, in their own files, accounts, brands, stores and keys. */
export function organizationService(deps: OrganizationDeps) {
  const { db, clock, cursors } = deps;
  // Every GET /v2/organization and many pages read the organization: kept per process, dropped on
  // every node when a trigger (migration 0019) announces `organization:<id>` on commit.
  const organizations = new ReadCache<OrganizationRow>({ maxEntries: 20_000, maxAgeMs: 10 * 60_000 });
  deps.changes.on(ORGANIZATION_TOPIC, (id) => (id ? organizations.delete(id) : organizations.clear()));
  const cachedOrganization = (id: string) => organizations.getOne(id, () => repo.organization(db, id));
  const organizationRow = (orgId: string) => mustExist('Organization', orgId, cachedOrganization);
  const organization = async (orgId: string) => toOrganization(await organizationRow(orgId));
  const context: OrganizationContext = { deps, requireOrganization: organizationRow };

  return {
    keyResolver: {
      resolve: (hash: string) => repo.principalByHash(db, hash),
      touch: (keyId: string, at: Date) => repo.touchApiKey(db, keyId, at),
    } satisfies KeyResolver,

    organization,
    /** The organization as other modules read it; not found when there is none with this reference. */
    organizationFacts: async (orgId: string): Promise<OrganizationFacts> =>
      organizationFacts(await organizationRow(orgId)),
    /** The same, or null when there is none with this reference. */
    async findOrganization(orgId: string): Promise<OrganizationFacts | null> {
      const o = isReference('Organization', orgId) ? await cachedOrganization(orgId) : null;
      return o && organizationFacts(o);
    },
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
      return organization(id);
    },
    countOrganizations: () => organizationLookups.countOrganizations(db),

    ...accountUseCases(context),
    ...brandUseCases(context),
    ...storeUseCases(context),
    ...apiKeyUseCases(context),
    storeByCode: (code: string) => organizationLookups.storeByCode(db, code),
    ...resolveUseCases(db),

    async setRateLimits(orgId: string, limits: RateLimitOverrides | null) {
      await organizationRow(orgId);
      organizations.hold(orgId);
      await repo.setRateLimits(db, orgId, limits && Object.keys(limits).length ? limits : null);
      deps.keys().evictOrganization(orgId);
      return { rateLimits: limits };
    },
    async setRendertokenLimit(orgId: string, limit: number) {
      if (!Number.isInteger(limit) || limit < 0)
        throw new ApiError('invalid_request', 'limit must be a whole number ≥ 0');
      await organizationRow(orgId);
      organizations.hold(orgId);
      await repo.setRendertokenLimit(db, orgId, limit);
      return { rendertokenLimit: limit };
    },
  };
}

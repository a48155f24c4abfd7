import type { Db } from '../../platform/db/index.ts';
import { ApiError, notFound } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import { type StoreRow, organizationLookups, organizationRepo as repo } from './repo.ts';

/** What an operator may type for an organization or a store, turned into the one it names. */
export function resolveUseCases(db: Db) {
  return {
    /**
     * An organization by its reference, one of its store codes, or its exact name. An ambiguous
     * name is a 409 listing the candidates.
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
  };
}

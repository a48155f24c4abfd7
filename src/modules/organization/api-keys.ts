import { badRequest, conflict } from '../../platform/errors.ts';
import { generateApiKey, hashSecret } from '../../platform/http/auth.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { newReference } from '../../platform/ids.ts';
import { type OrganizationContext, mustExist } from './context.ts';
import { type IntegratorRow, organizationLookups, organizationRepo as repo } from './repo.ts';
import { toApiKey, toIntegrator } from './views.ts';

/** API keys, and the integrators (partner apps) a key may act for. */
export function apiKeyUseCases({ deps, requireOrganization }: OrganizationContext) {
  const { db, clock, cursors } = deps;
  return {
    /** Keys not revoked (the partner overview's first step). */
    activeApiKeyCount: (orgId: string) => organizationLookups.countActiveApiKeys(db, orgId),
    async listApiKeys(orgId: string, page: PageRequest) {
      return listPage(cursors, page, {
        plural: 'apiKeys',
        scope: 'apikeys',
        load: (ks) => repo.apiKeys(db, orgId, ks),
        item: toApiKey,
      });
    },
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
    /**
     * The secret is returned here once and never stored: only its hash is. `integrator` (operator
     * only): its code or reference; orders created with the key record its code.
     */
    async createApiKey(orgId: string, input: { name: string; readOnly?: boolean; integrator?: string }) {
      await requireOrganization(orgId);
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
    /** Demo keys are re-issued by every seed run: their secrets are not kept anywhere. */
    async reissueKeys(orgId: string, names: string[]) {
      await organizationLookups.revokeKeysNamed(db, orgId, names, clock.now());
      deps.keys().evictOrganization(orgId);
    },
  };
}

import { mustFind, notFound } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { OrganizationDeps } from './deps.ts';
import type { OrganizationRow } from './repo.ts';

/** What every use case of the module is built with. */
export interface OrganizationContext {
  deps: OrganizationDeps;
  /** The organization (from this process's cache), or 404. */
  requireOrganization(orgId: string): Promise<OrganizationRow>;
}

/** The row `load` finds for a well-formed reference of `resource`, or 404. */
export async function mustExist<T>(resource: string, ref: string, load: (id: string) => Promise<T | null>): Promise<T> {
  if (!isReference(resource, ref)) throw notFound(resource, ref);
  return mustFind(await load(ref), resource, ref);
}

import { type Executor, PG_DEADLOCK, PG_UNIQUE_VIOLATION, pgErrorCode } from '../../platform/db/index.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { CatalogDeps } from './deps.ts';
import { CATALOG_TOPIC } from './events.ts';
import type { ProductView } from './repo.ts';
import { productWriter } from './writer.ts';

/** What the operator's catalog changes are given. */
export type AdminDeps = Pick<CatalogDeps, 'db' | 'clock' | 'log' | 'cursors' | 'blobs' | 'changes' | 'organization'> & {
  detail: (id: string, view: ProductView) => Promise<Record<string, unknown>>;
};

/** What every operator use case of the catalog is built with. */
export interface AdminContext extends ReturnType<typeof productWriter> {
  deps: AdminDeps;
  /** One catalog change in one transaction, announced to every node's read caches on commit. */
  write<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /** An organization reference given in a file or a change, checked to exist (null stays null). */
  checkOrganization(ref: string | null | undefined, where: string): Promise<string | null>;
}

export function adminContext(deps: AdminDeps): AdminContext {
  const { db } = deps;
  /** Two writers racing for the same new key or rows: the loser is told to apply again, not a 500. */
  async function write<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    try {
      const result = await db.tx(async (tx) => {
        const out = await fn(tx);
        await deps.changes.announce(tx, CATALOG_TOPIC);
        return out;
      });
      deps.changes.changed(CATALOG_TOPIC);
      return result;
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === PG_UNIQUE_VIOLATION || code === PG_DEADLOCK)
        throw conflict(
          'catalog_conflict',
          'Another catalog change touched the same records at the same time; apply this change again',
        );
      throw err;
    }
  }
  async function checkOrganization(ref: string | null | undefined, where: string): Promise<string | null> {
    if (ref === undefined || ref === null) return null;
    if (!isReference('Organization', ref)) throw badRequest(`${where} is not an organization reference`);
    if (!(await deps.organization.findOrganization(ref)))
      throw badRequest(`${where}: organization ${ref} does not exist`);
    return ref;
  }
  return { deps, write, checkOrganization, ...productWriter(deps.clock) };
}

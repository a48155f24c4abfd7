import type { Static } from 'typebox';
import { ReadCache } from '../../platform/cache.ts';
import type { Executor } from '../../platform/db/index.ts';
import { PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from '../../platform/db/index.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { checkCallbackUrl } from '../../platform/http/targets.ts';
import { isReference, newReference } from '../../platform/ids.ts';
import { type OrganizationContext, mustExist } from './context.ts';
import { organizationRepo as repo } from './repo.ts';
import type { CreateStore, UpdateStore } from './schemas.ts';
import { type StoreFacts, storeFacts, toStore } from './views.ts';

/** The `ChangeFeed` topic of store changes. */
const STORES_TOPIC = 'stores';

/** Stores: where orders come from, each with its account, default brand and callback. */
export function storeUseCases({ deps, requireOrganization }: OrganizationContext) {
  const { db, clock, cursors } = deps;
  // Every order reads its store; stores change rarely, and every change is announced.
  const cache = new ReadCache<StoreFacts>({ maxEntries: 20_000, maxAgeMs: 60_000 });
  deps.changes.on(STORES_TOPIC, () => cache.clear());

  const storeRow = (orgId: string, ref: string) => mustExist('Store', ref, (id) => repo.store(db, orgId, id));
  const store = async (orgId: string, ref: string) => toStore(await storeRow(orgId, ref));

  /** A store's default brand, when one is given, must be a brand of its organization. */
  async function checkDefaultBrand(orgId: string, brandRef: string | null | undefined): Promise<void> {
    if (!brandRef) return;
    if (isReference('Brand', brandRef) && (await repo.brand(db, orgId, brandRef))) return;
    throw badRequest('body.defaultBrandReference is not a brand of this organization');
  }
  const checkCallback = (url: string | null | undefined) => {
    if (url) checkCallbackUrl(url, { allowPrivate: deps.config.allowPrivateTargets, field: 'callbackUrl' });
  };

  return {
    async listStores(orgId: string, page: PageRequest) {
      return listPage(cursors, page, { plural: 'stores', load: (ks) => repo.stores(db, orgId, ks), item: toStore });
    },
    store,
    /** The store as GET shows it, or null when it does not exist or belongs to another organization. */
    async findStore(orgId: string, ref: string) {
      const row = isReference('Store', ref) ? await repo.store(db, orgId, ref) : null;
      return row ? toStore(row) : null;
    },
    storeRow,
    /** Orders, shipments, billing: the store inside the caller's transaction. */
    async storeIn(ex: Executor, orgId: string, storeId: string): Promise<StoreFacts | null> {
      const s = await repo.store(ex, orgId, storeId);
      return s && storeFacts(s);
    },
    /** The same outside a transaction, from this process's cache (mapped once per fill: order intake reads it per order). */
    cachedStore: (orgId: string, storeId: string) =>
      cache.getOne(`${orgId}/${storeId}`, async () => {
        const s = await repo.store(db, orgId, storeId);
        return s && storeFacts(s);
      }),
    nextOrderNumber: (ex: Executor, storeId: string) => repo.nextOrderNumber(ex, storeId),
    takeOrderNumbers: (ex: Executor, counts: Map<string, number>) => repo.takeOrderNumbers(ex, counts),
    async createStore(orgId: string, input: Static<typeof CreateStore>) {
      await requireOrganization(orgId);
      if (!isReference('Account', input.accountReference) || !(await repo.account(db, orgId, input.accountReference))) {
        throw badRequest('body.accountReference is not an account of this organization');
      }
      await checkDefaultBrand(orgId, input.defaultBrandReference);
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
      return store(orgId, id);
    },
    async updateStore(orgId: string, ref: string, input: Static<typeof UpdateStore>) {
      await storeRow(orgId, ref);
      await checkDefaultBrand(orgId, input.defaultBrandReference);
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
      return store(orgId, ref);
    },
  };
}

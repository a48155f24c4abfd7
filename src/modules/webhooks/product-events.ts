import { ApiError } from '../../platform/errors.ts';
import type { ProductEventDeps } from './deps.ts';

/** What the catalog tells its listeners after a product change committed. */
export interface ProductChangeNotice {
  productReference: string;
  organizationIds: string[] | 'all';
}

/**
 * `product.updated` for every organization that can see the product, each with the product as that
 * organization sees it. The views are read first; the events are written in one transaction, so a
 * retried catalog job emits them again (at least once) but never half of them.
 */
export function productUpdatedListener(deps: ProductEventDeps) {
  return async (change: ProductChangeNotice): Promise<void> => {
    const orgIds =
      change.organizationIds === 'all'
        ? await collectOrganizationIds((cursor) => deps.organization.listOrganizations({ cursor, limit: 100 }))
        : change.organizationIds;
    const views: Array<{ orgId: string; product: unknown }> = [];
    for (const orgId of orgIds) {
      try {
        views.push({ orgId, product: await deps.catalog.freshProduct(orgId, change.productReference) });
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      }
    }
    if (views.length === 0) return;
    await deps.db.tx(async (tx) => {
      for (const v of views)
        await deps.events.record(tx, {
          organizationId: v.orgId,
          type: 'product.updated',
          data: { product: v.product },
        });
    });
  };
}

/** Pages through a keyset-paginated organization list. */
export async function collectOrganizationIds(
  list: (cursor?: string) => Promise<{ organizations: Array<{ reference: string }>; nextCursor: string | null }>,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    ids.push(...page.organizations.map((o) => o.reference));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return ids;
}

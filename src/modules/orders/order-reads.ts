import type { Static } from 'typebox';
import { ReadCache } from '../../platform/cache.ts';
import { mustFind } from '../../platform/errors.ts';
import { type PageRequest, listPage } from '../../platform/http/pagination.ts';
import { isReference } from '../../platform/ids.ts';
import type { StoreFacts } from '../organization/service.ts';
import { ORDER_TOPIC } from './changes.ts';
import type { OrdersDeps } from './deps.ts';
import { type OrderlineRow, type OrderRow, type OrderStatus, ordersRepo as repo } from './repo.ts';
import type { ListOrdersQuery } from './schemas.ts';
import { addressView, toOrder } from './view.ts';

/** Orders and addresses as GET shows them, from a per-node cache of order views. */
export function orderReads(
  deps: Pick<OrdersDeps, 'db' | 'cursors' | 'organization' | 'changes'>,
  bodyStore: (orgId: string, ref: string, field: string) => Promise<StoreFacts>,
) {
  const { db, cursors, organization } = deps;
  // A store's code never changes once created (updateStore cannot set it), so the code of a store
  // is read once per process instead of once per order read.
  const knownCodes = new Map<string, string>();
  async function storeCodes(orgId: string, rows: OrderRow[]): Promise<Map<string, string>> {
    const codes = new Map<string, string>();
    for (const id of new Set(rows.map((r) => r.store_id))) {
      let code = knownCodes.get(id);
      if (code === undefined) {
        code = (await organization.storeIn(db, orgId, id))!.code;
        if (knownCodes.size >= 10_000) knownCodes.clear();
        knownCodes.set(id, code);
      }
      codes.set(id, code);
    }
    return codes;
  }

  // Order views by id, dropped on every node when any statement changes the order (the triggers
  // of migration 0019 announce `order:<id>` on commit), and held by this node's own changes from
  // their first statement on, so a writer's client always reads its own write.
  const views = new ReadCache<{ order: OrderRow; lines: OrderlineRow[] }>({ maxEntries: 5000, maxAgeMs: 10 * 60_000 });
  deps.changes.on(ORDER_TOPIC, (id) => (id ? views.delete(id) : views.clear()));
  const touch = (orderId: string) => views.hold(orderId);

  async function findOrder(orgId: string, ref: string) {
    if (!isReference('Order', ref)) return null;
    const found = await views.getOne(ref, () => repo.orderWithLines(db, orgId, ref));
    // Cached for whoever asked first: another organization's order is not found here.
    if (!found || found.order.organization_id !== orgId) return null;
    const codes = await storeCodes(orgId, [found.order]);
    return toOrder(found.order, found.lines, codes.get(found.order.store_id)!);
  }

  async function findAddress(orgId: string, ref: string) {
    const a = isReference('Address', ref) ? await repo.resolvableAddress(db, orgId, ref) : null;
    return a ? addressView(a.id, a.fields) : null;
  }

  return {
    touch,
    findOrder,
    findAddress,
    async list(orgId: string, q: Static<typeof ListOrdersQuery>) {
      const filter: { storeId?: string; status?: OrderStatus; createdAfter?: Date; createdBefore?: Date } = {};
      if (q.storeReference !== undefined)
        filter.storeId = (await bodyStore(orgId, q.storeReference, 'query.storeReference')).id;
      if (q.status !== undefined) filter.status = q.status as OrderStatus;
      if (q.createdAfter !== undefined) filter.createdAfter = new Date(q.createdAfter);
      if (q.createdBefore !== undefined) filter.createdBefore = new Date(q.createdBefore);
      return listPage(cursors, q as PageRequest, {
        plural: 'orders',
        load: (ks) => repo.orders(db, orgId, ks, filter),
        async items(rows) {
          const lines = await repo.lines(
            db,
            rows.map((r) => r.id),
          );
          const codes = await storeCodes(orgId, rows);
          return rows.map((o) =>
            toOrder(
              o,
              lines.filter((l) => l.order_id === o.id),
              codes.get(o.store_id)!,
            ),
          );
        },
      });
    },

    async lookupByCustomIdentifier(orgId: string, customIdentifier: string) {
      const o = mustFind(
        await repo.orderByCustomIdentifier(db, orgId, customIdentifier),
        `Order with customIdentifier "${customIdentifier}"`,
      );
      return { orderReference: o.id };
    },
  };
}

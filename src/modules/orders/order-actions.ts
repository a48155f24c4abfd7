import type { Executor } from '../../platform/db/index.ts';
import { ApiError, mustFind } from '../../platform/errors.ts';
import { isReference } from '../../platform/ids.ts';
import type { StoreFacts } from '../organization/service.ts';
import { type OperatorCancelSettle, orderChanges } from './changes.ts';
import type { OrdersDeps } from './deps.ts';
import type { StartGuard } from './production-start.ts';
import { type OrderFacts, orderFacts } from './facts.ts';
import { ordersRepo as repo } from './repo.ts';

/** Called in the transaction that puts an order into production, with the locked order. */
export type ProductionListener = (tx: Executor, order: OrderFacts) => Promise<void>;

/**
 * The changes to an order as partners, operators and other modules ask for them: by reference,
 * each run on the order's row (changes.ts).
 */
export function orderActions(
  deps: OrdersDeps,
  own: {
    /** This node is changing the order: its cached view is held until the change is announced. */
    touch: (orderId: string) => void;
    writable: (store: StoreFacts) => void;
  },
) {
  const { db, organization } = deps;

  /** The order row; `orgId` null: any organization (operator). */
  const orderRow = async (orgId: string | null, ref: string) =>
    isReference('Order', ref) ? repo.order(db, orgId, ref) : null;

  const productionListeners: ProductionListener[] = [];
  const changes = orderChanges({
    ...deps,
    ...own,
    storeOf: (ex, o) => organization.storeIn(ex, o.organization_id, o.store_id) as Promise<StoreFacts>,
    async productionStarted(tx, o) {
      if (productionListeners.length === 0) return;
      const facts = orderFacts(o);
      for (const l of productionListeners) await l(tx, facts);
    },
  });

  return {
    /** `viaUpstream`: the store's platform asked (the API's store rule does not apply). */
    async cancel(
      orgId: string,
      ref: string,
      wanted: Array<{ index: number; canceledQuantity: number }>,
      viaUpstream = false,
    ) {
      await changes.cancel(mustFind(await orderRow(orgId, ref), 'Order', ref), wanted, viaUpstream);
    },
    /** Operator: cancels lines (null: the whole order) in any status before shipping; see changes.ts. */
    async operatorCancel(ref: string, indexes: number[] | null, settle: OperatorCancelSettle) {
      return changes.operatorCancel(mustFind(await orderRow(null, ref), 'Order', ref), indexes, settle);
    },
    async changeAddress(orgId: string, ref: string, input: Record<string, unknown>) {
      await changes.changeAddress(orgId, mustFind(await orderRow(orgId, ref), 'Order', ref), input);
    },
    /**
     * Work that starts with production, run in the transaction that moves the order (a module above
     * this one subscribes here: print files). A throwing listener rolls the production start back.
     */
    onProductionStarted(listener: ProductionListener): void {
      productionListeners.push(listener);
    },
    /**
     * Test helper, operator and the release: `pending`/`preorder` → `in_production`. `orgId` null:
     * any organization. `guard` runs in the start's transaction (the release re-checks its holds).
     */
    async startProduction(orgId: string | null, ref: string, guard?: StartGuard) {
      await changes.startProduction(mustFind(await orderRow(orgId, ref), 'Order', ref), guard);
    },
    /**
     * A prepaid account was topped up: its pending orders, which production start refused for want
     * of balance, go into production, the oldest first, while the balance covers them.
     */
    async releasePrepaidHeld(accountId: string): Promise<string[]> {
      const started: string[] = [];
      for (const id of await repo.pendingOfAccount(db, accountId)) {
        const row = await repo.order(db, null, id);
        if (row?.status !== 'pending') continue;
        try {
          await changes.startProduction(row);
          started.push(id);
        } catch (err) {
          if (err instanceof ApiError && err.code === 'insufficient_balance') break;
          if (err instanceof ApiError && err.code === 'order_not_pending') continue;
          throw err;
        }
      }
      return started;
    },

    releasePreorders: changes.releasePreorders,
    /** The catalog's product changes: a pre-order waits for its prelaunched products; the launch releases it. */
    async productChanged(c: { productReference: string; status?: { from: string; to: string } }): Promise<void> {
      if (c.status?.from === 'prelaunched' && (c.status.to === 'launched' || c.status.to === 'sunsetted'))
        await changes.releasePreorders(c.productReference);
    },
    createReplacementOrder: changes.createReplacementOrder,
  };
}

import { cancelUseCases } from './cancel-order.ts';
import { addressChange } from './change-address.ts';
import { type ChangeDeps, changeKit } from './change-kit.ts';
import { productionStart } from './production-start.ts';
import { replacementOrders } from './replacement-order.ts';

export type { OperatorCancelSettle } from './change-kit.ts';

/** `order:<id>` on the change feed: announced by the triggers of migration 0019 on commit. */
export const ORDER_TOPIC = 'order';

/**
 * Cancelation, address change, production start and replacement orders: each one transaction on
 * the locked order row, with order.updated and the callback (change-kit.ts) in it.
 */
export function orderChanges(deps: ChangeDeps) {
  const kit = changeKit(deps);
  return {
    ...cancelUseCases(deps, kit),
    ...addressChange(deps, kit),
    ...productionStart(deps, kit),
    ...replacementOrders(deps),
  };
}

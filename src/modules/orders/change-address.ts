import { badRequest, conflict } from '../../platform/errors.ts';
import { newReference } from '../../platform/ids.ts';
import { isPackstation, validateAddress } from '../shipping/address.ts';
import { parcelOf, shippingOptions } from '../shipping/data.ts';
import { type OrderRow, ordersRepo as repo } from './repo.ts';
import { isOpen } from './view.ts';
import type { ChangeDeps, ChangeKit } from './change-kit.ts';

/** A dropship order's new address, repriced at its level or the next one that carries it. */
export function addressChange(deps: ChangeDeps, kit: ChangeKit) {
  const { db, clock } = deps;
  const { changed, lockOrder } = kit;
  return {
    async changeAddress(orgId: string, o: OrderRow, input: Record<string, unknown>): Promise<void> {
      await db.tx(async (tx) => {
        const { order, lines, store } = await lockOrder(tx, o);
        deps.writable(store);
        if (order.shipping_kind !== 'dropship')
          throw conflict(
            'order_not_dropship',
            `Order ${order.id} is a combined order: it ships to the store's combined address`,
          );
        if (order.replaces_order_id)
          throw conflict(
            'replacement_address_locked',
            `Order ${order.id} replaces a claimed order and goes to the claim's destination; its address cannot change`,
          );
        if (!isOpen(lines))
          throw conflict(
            'order_completed',
            `Every line of order ${order.id} is shipped or canceled; the address can no longer change`,
          );
        const address = validateAddress(input, 'body.dropshipAddress');
        const parcel = parcelOf(lines, address.countryCode!, isPackstation(address));
        const chosen = shippingOptions(parcel, order.minimal_shipping_level ?? 'basic')[0];
        if (!chosen)
          throw badRequest(`body.dropshipAddress: no shipping level can carry this order to ${address.countryCode}`);
        const id = newReference('Address');
        await repo.insertAddress(tx, { id, organization_id: orgId, fields: address, created_at: clock.now() });
        await repo.setAddress(tx, order.id, id);
        await repo.setShipping(tx, order.id, chosen.level, chosen.price);
        await changed(tx, order, store);
      });
    },
  };
}

import type { PlaceOrder } from './orders.ts';
import { type Flow, MISSING } from './recorder.ts';

export interface Shipped {
  order: string;
  shipment: string;
}

/** Places an order, starts its production and ships it ten days ago, so claims may be filed. */
export type Ship = (customIdentifier: string) => Promise<Shipped>;

/** Production and shipment through the test helpers, tracking events and the shipment as a partner reads it. */
export async function captureShipments({ r, clock }: Flow, placeOrder: PlaceOrder) {
  const ship: Ship = async (customIdentifier) => {
    const order = await placeOrder(customIdentifier);
    await r.send('testStartProduction', 'POST', `/v2/test-helpers/orders/${order}/start-production`, {}, 204);
    const shippedAt = new Date(clock.now().getTime() - 10 * 86_400_000).toISOString();
    const res = await r.send(
      'testCreateShipment',
      'POST',
      '/v2/test-helpers/shipments',
      { body: { shipment: { orderReferences: [order], shippedAt } } },
      200,
    );
    return { order, shipment: res.data.shipment.reference as string };
  };
  const shipped = await ship('shop-42-order-1002');
  await r.send('testStartProduction', 'POST', `/v2/test-helpers/orders/${shipped.order}/start-production`, {}, 409);
  await r.send(
    'testCreateShipment',
    'POST',
    '/v2/test-helpers/shipments',
    { body: { shipment: { orderReferences: [] } } },
    400,
  );
  const leftAt = (hours: number) => new Date(clock.now().getTime() - (10 * 24 - hours) * 3600_000).toISOString();
  const tracking = `/v2/test-helpers/shipments/${shipped.shipment}/tracking-events`;
  await r.send(
    'testAddTrackingEvents',
    'POST',
    tracking,
    {
      body: {
        trackingEvents: [
          { status: 'in_transit', occurred: leftAt(3), location: 'Amsterdam, NL' },
          { status: 'out_for_delivery', occurred: leftAt(26), location: 'Berlin, DE' },
          { status: 'delivered', occurred: leftAt(31), description: 'Delivered to the recipient' },
        ],
      },
    },
    200,
  );
  await r.send(
    'testAddTrackingEvents',
    'POST',
    tracking,
    { body: { trackingEvent: { status: 'in_transit', occurred: leftAt(-1) } } },
    400,
  );
  await r.send('getShipment', 'GET', `/v2/shipments/${shipped.shipment}`, {}, 200);
  await r.send('getShipment', 'GET', `/v2/shipments/${MISSING('Shipment')}`, {}, 404);
  return { ship, shipped };
}

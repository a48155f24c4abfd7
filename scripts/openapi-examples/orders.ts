import { call } from '../../test/support/app.ts';
import { ADDRESS } from '../../examples/integration.ts';
import { type Flow, MISSING } from './recorder.ts';

/** Places a dropship order of the artwork under this custom identifier; returns its reference. */
export type PlaceOrder = (customIdentifier: string) => Promise<string>;

/** A quote, an order and what a partner does with it: list, read, look up, cancel lines, change the address. */
export async function captureOrders(flow: Flow, imageReference: string): Promise<PlaceOrder> {
  const { t, r, storeReference, productReference } = flow;
  const orderline = {
    productReference,
    imageReference,
    quantity: 2,
    annotations: [{ key: 'source', value: 'shop-42' }],
  };
  await r.send(
    'quoteShipping',
    'POST',
    '/v2/quote',
    {
      body: {
        quote: {
          storeReference,
          shippingKind: 'dropship',
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference, quantity: 2 }],
        },
      },
    },
    200,
  );
  await r.send('quoteShipping', 'POST', '/v2/quote', {
    body: { quote: { storeReference, shippingKind: 'dropship', orderlines: [] } },
  });
  const placeOrder: PlaceOrder = async (customIdentifier) => {
    const body = {
      order: {
        storeReference,
        shippingKind: 'dropship',
        customIdentifier,
        dropshipAddress: ADDRESS,
        dropshipMinimalShippingLevel: 'tracked',
        orderlines: [orderline],
      },
    };
    return (await r.send('createOrder', 'POST', '/v2/orders', { body }, 200)).data.order.reference as string;
  };
  const first = await placeOrder('shop-42-order-1001');
  await r.send(
    'createOrder',
    'POST',
    '/v2/orders',
    { body: { order: { storeReference, shippingKind: 'dropship', orderlines: [orderline] } } },
    400,
  );
  await r.send('listOrders', 'GET', '/v2/orders?limit=2', {}, 200);
  await r.send('listOrders', 'GET', '/v2/orders?status=nonsense', {}, 400);
  await r.send('getOrder', 'GET', `/v2/orders/${first}`, {}, 200);
  await r.send('getOrder', 'GET', `/v2/orders/${MISSING('Order')}`, {}, 404);
  const lookup = '/v2/utilities/lookup-order-reference-by-custom-identifier?customIdentifier=';
  await r.send('lookupOrderByCustomIdentifier', 'GET', `${lookup}shop-42-order-1001`, {}, 200);
  await r.send('lookupOrderByCustomIdentifier', 'GET', `${lookup}unknown`, {}, 404);
  const cancel = (canceledQuantity: number) => ({ body: { orderlines: [{ index: 1, canceledQuantity }] } });
  await r.send('cancelOrderlines', 'POST', `/v2/orders/${first}/cancel`, cancel(1), 204);
  await r.send('cancelOrderlines', 'POST', `/v2/orders/${first}/cancel`, cancel(0), 409);
  await r.send(
    'changeDropshipAddress',
    'PUT',
    `/v2/orders/${first}/dropship-address`,
    { body: { dropshipAddress: { ...ADDRESS, city: 'Utrecht', zipcode: '3511 AA' } } },
    204,
  );
  await r.send(
    'changeDropshipAddress',
    'PUT',
    `/v2/orders/${MISSING('Order')}/dropship-address`,
    { body: { dropshipAddress: ADDRESS } },
    404,
  );
  const addressReference = (await call(t, 'GET', `/v2/orders/${first}`)).data.order.dropshipAddressReference;
  await r.send('getAddress', 'GET', `/v2/addresses/${addressReference}`, {}, 200);
  await r.send('getAddress', 'GET', `/v2/addresses/${MISSING('Address')}`, {}, 404);
  return placeOrder;
}

/** The demo organization's data that the scenarios read and order against. */
import type { Bench, Req } from '../harness.ts';
import { noisePng } from '../setup.ts';

export interface Demo {
  /** A launched print product: the demo compositions are made for it. */
  printable: any;
  plain: any;
  store: any;
  image: any;
  demoOrder: any;
  /** A dropship address in the Netherlands. */
  address: Record<string, string>;
  /** `GET /v2/orders/{ref}` of the small organization: the read other scenarios load the API with. */
  orderLight: Req;
  /** A fresh dropship order's body, two lines, a new custom identifier each call. */
  orderBody: () => string;
}

export async function demoData(b: Bench): Promise<Demo> {
  const { api, f, H } = b;
  // The whole catalog (hundreds of products, newest first): the demo compositions are made for older phones.
  const demoProducts: any[] = [];
  for (let cursor = ''; ; ) {
    const page = (await api('GET', `/v2/products?limit=100${cursor ? `&cursor=${cursor}` : ''}`, f.demoKey)).data;
    demoProducts.push(...page.products);
    if (!page.nextCursor) break;
    cursor = encodeURIComponent(page.nextCursor);
  }
  // The demo compositions are made for this product; any launched print product would do for orders.
  const printable =
    demoProducts.find((p) => p.name === 'iPhone 15 Clear Case') ??
    demoProducts.find((p) => p.printable && p.status === 'launched');
  const plain = demoProducts.find((p) => !p.printable && p.status === 'launched');
  const store = (await api('GET', '/v2/stores', f.demoKey)).data.stores.find((s: any) => s.integration === 'api');
  const image = (await api('POST', '/v2/images', f.demoKey, await noisePng(64, 64, 1), 'application/octet-stream')).data
    .image;
  const demoOrder = (await api('GET', '/v2/orders?limit=1', f.small.key)).data.orders[0];
  const address = {
    firstname: 'Ada',
    lastname: 'Lovelace',
    streetname: 'Herengracht',
    housenumber: '1',
    zipcode: '1015 BA',
    city: 'Amsterdam',
    countryCode: 'NL',
    email: 'ada@example.com',
  };
  let n = 0;
  const orderBody = () =>
    JSON.stringify({
      order: {
        storeReference: store.reference,
        shippingKind: 'dropship',
        customIdentifier: `bench-${Date.now()}-${n++}`,
        dropshipAddress: address,
        orderlines: [
          { productReference: printable.reference, imageReference: image.reference, quantity: 1 },
          { productReference: plain.reference, quantity: 2 },
        ],
      },
    });
  const orderLight = { path: `/v2/orders/${demoOrder.reference}`, headers: H(f.small.key) };
  return { printable, plain, store, image, demoOrder, address, orderLight, orderBody };
}

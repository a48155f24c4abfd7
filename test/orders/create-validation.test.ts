import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, expectError, getOrder, orderBody, products, store, uploadImage } from './helpers.ts';

describe('POST /v2/orders: what it refuses', () => {
  let t: TestApp;
  let image: string;
  let p: ReturnType<typeof products>;
  before(async () => {
    t = await createTestApp();
    image = await uploadImage(t);
    p = products(t);
  });
  after(() => t.close());

  it('requires an address for dropship orders', async () => {
    const body = orderBody(t, image);
    delete (body.order as Record<string, unknown>).dropshipAddress;
    expectError(await call(t, 'POST', '/v2/orders', { body }), 400, 'missing_address');
  });

  it('accepts only api stores of the organization', async () => {
    expectError(
      await call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { storeReference: store(t, 'DEMOSHOP') }) }),
      403,
      'store_not_writable_via_api',
    );
    expectError(
      await call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { storeReference: store(t, 'OTHER1') }) }),
      400,
      'invalid_request',
      'body.order.storeReference',
    );
    expectError(
      await call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { storeReference: 'Store_nope' }) }),
      400,
      'invalid_request',
      'body.order.storeReference',
    );
  });

  it('needs an image on print products and none on other products', async () => {
    const noImage = orderBody(t, image, { orderlines: [{ productReference: p.clear, quantity: 1 }] });
    expectError(
      await call(t, 'POST', '/v2/orders', { body: noImage }),
      400,
      'missing_image_reference',
      'orderlines[0].imageReference',
    );
    const protectorWithImage = orderBody(t, image, {
      orderlines: [{ productReference: p.protector, imageReference: image, quantity: 1 }],
    });
    expectError(
      await call(t, 'POST', '/v2/orders', { body: protectorWithImage }),
      400,
      'invalid_request',
      'orderlines[0].imageReference',
    );
    const ok = await createOrder(
      t,
      orderBody(t, image, { orderlines: [{ productReference: p.protector, quantity: 1 }] }),
    );
    assert.equal((await getOrder(t, ok)).orderlines[0].imageReference, null);
  });

  it('treats an image of another organization as unknown', async () => {
    const foreign = await uploadImage(t, t.otherKey);
    const res = await call(t, 'POST', '/v2/orders', { body: orderBody(t, foreign) });
    expectError(res, 400, 'invalid_request', 'body.order.orderlines[0].imageReference');
    assert.ok(!res.data.message.includes('Other'), 'does not reveal the other organization');
    expectError(
      await call(t, 'POST', '/v2/orders', { body: orderBody(t, 'Image_0000') }),
      400,
      'invalid_request',
      'imageReference',
    );
  });

  it('refuses announced, ended, archived, invisible and unknown products', async () => {
    for (const ref of [p.announced, p.ended, p.archived, 'Product_0123456789abcdefghjkmnpqrs', 'nonsense']) {
      const res = await call(t, 'POST', '/v2/orders', {
        body: orderBody(t, image, { orderlines: [{ productReference: ref, imageReference: image, quantity: 1 }] }),
      });
      expectError(res, 400, 'product_not_orderable', 'orderlines[0].productReference');
    }
    // The leather collection is private to the first organization.
    const otherImage = await uploadImage(t, t.otherKey);
    const res = await call(t, 'POST', '/v2/orders', {
      key: t.otherKey,
      body: {
        order: {
          storeReference: store(t, 'OTHER1'),
          shippingKind: 'dropship',
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference: p.leather, imageReference: otherImage, quantity: 1 }],
        },
      },
    });
    expectError(res, 400, 'product_not_orderable');
    // sunsetted is still orderable, while its stock lasts (the demo's iPhone 14 case has none left)
    const [{ item_id }] = await t.db.query<{ item_id: string }>('SELECT item_id FROM products WHERE id = $1', [
      p.sunsetted,
    ]);
    assert.equal((await operator(t, 'PUT', `/catalog/items/${item_id}/stock`, { logicalQuantity: 5 })).statusCode, 200);
    await createOrder(
      t,
      orderBody(t, image, { orderlines: [{ productReference: p.sunsetted, imageReference: image, quantity: 1 }] }),
    );
  });

  it('takes up to 10 annotations per line and returns them', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        orderlines: [{ productReference: p.clear, imageReference: image, quantity: 1, annotations: ten }],
      }),
    );
    assert.deepEqual((await getOrder(t, ref)).orderlines[0].annotations, ten);
    const eleven = [...ten, { key: 'k10', value: 'v10' }];
    expectError(
      await call(t, 'POST', '/v2/orders', {
        body: orderBody(t, image, {
          orderlines: [{ productReference: p.clear, imageReference: image, quantity: 1, annotations: eleven }],
        }),
      }),
      400,
      'invalid_request',
      'annotations',
    );
  });

  it('rejects undocumented fields and bad quantities, naming the field', async () => {
    expectError(
      await call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { giftWrap: true }) }),
      400,
      'invalid_request',
      'body.order.giftWrap',
    );
    expectError(
      await call(t, 'POST', '/v2/orders', {
        body: orderBody(t, image, {
          orderlines: [{ productReference: p.clear, imageReference: image, quantity: 1, price: 1 }],
        }),
      }),
      400,
      'invalid_request',
      'body.order.orderlines[0].price',
    );
    expectError(
      await call(t, 'POST', '/v2/orders', {
        body: orderBody(t, image, { orderlines: [{ productReference: p.clear, imageReference: image, quantity: -1 }] }),
      }),
      400,
      'invalid_request',
      'quantity',
    );
    expectError(
      await call(t, 'POST', '/v2/orders', {
        body: orderBody(t, image, { dropshipAddress: { ...ADDRESS, floor: '3' } }),
      }),
      400,
      'invalid_request',
      'body.order.dropshipAddress.floor',
    );
    expectError(
      await call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { orderlines: [] }) }),
      400,
      'invalid_request',
      'orderlines',
    );
    expectError(
      await call(t, 'POST', '/v2/orders', { payload: 'not json', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    );
  });

  it('validates the destination address', async () => {
    const post = (address: Record<string, unknown>) =>
      call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { dropshipAddress: address }) });
    const { email: _e, ...noEmail } = ADDRESS;
    expectError(await post(noEmail), 400, 'invalid_address_missing_email');
    expectError(await post({ ...ADDRESS, email: '  ' }), 400, 'invalid_address_missing_email');
    for (const cc of ['RU', 'BY', 'KP', 'IR', 'SY', 'CU', 'ru'])
      expectError(await post({ ...ADDRESS, countryCode: cc }), 400, 'invalid_address_denied_country');
    const { lastname: _l, ...noLastname } = ADDRESS;
    expectError(await post(noLastname), 400, 'invalid_address', 'body.order.dropshipAddress.lastname');
    const { firstname: _f, ...noFirstname } = ADDRESS;
    expectError(await post(noFirstname), 400, 'invalid_address', 'body.order.dropshipAddress.firstname');
    await createOrder(t, orderBody(t, image, { dropshipAddress: { ...noFirstname, company: 'Jansen B.V.' } }));
    expectError(await post({ ...ADDRESS, countryCode: 'XX' }), 400, 'invalid_address', 'countryCode');
    expectError(await post({ ...ADDRESS, email: 'anna-at-example' }), 400, 'invalid_address', 'email');
    expectError(await post({ ...ADDRESS, phonenumber: 'call me maybe' }), 400, 'invalid_address', 'phonenumber');
    expectError(await post({ ...ADDRESS, phonenumber: '12' }), 400, 'invalid_address', 'phonenumber');
    expectError(await post({ ...ADDRESS, city: 'A'.repeat(51) }), 400, 'invalid_address', 'city');
    expectError(await post({ ...ADDRESS, zipcode: 5 }), 400, 'invalid_request', 'zipcode');
  });

  it('refuses address text in scripts the shipping label cannot print, and takes Chinese, Japanese and Korean', async () => {
    const post = (address: Record<string, unknown>) =>
      call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { dropshipAddress: address }) });
    const arabic = await post({ ...ADDRESS, countryCode: 'AE', streetname: 'شارع الشيخ زايد' });
    expectError(arabic, 400, 'invalid_address', 'body.order.dropshipAddress.streetname has Arabic letters');
    assert.match(arabic.data.message, /Latin letters/);
    expectError(await post({ ...ADDRESS, city: 'กรุงเทพฯ' }), 400, 'invalid_address', 'city has Thai letters');
    expectError(await post({ ...ADDRESS, lastname: 'כהן' }), 400, 'invalid_address', 'lastname has Hebrew letters');
    expectError(await post({ ...ADDRESS, company: 'Old 𐌀 Italic' }), 400, 'invalid_address', 'U+10300');
    // Emoji and format characters are taken; documents leave them out.
    for (const address of [
      {
        ...ADDRESS,
        countryCode: 'JP',
        zipcode: '150-0001',
        state: '東京都',
        city: '渋谷区',
        streetname: '神宮前1丁目',
      },
      { ...ADDRESS, countryCode: 'KR', city: '서울특별시', streetname: '테헤란로' },
      { ...ADDRESS, countryCode: 'CN', city: '北京市', streetname: '建国路' },
      { ...ADDRESS, firstname: 'Anna 🌷', lastname: 'Jansen\u200d' },
    ])
      await createOrder(t, orderBody(t, image, { dropshipAddress: address }));
  });

  it('refuses writes with a read-only key', async () => {
    expectError(
      await call(t, 'POST', '/v2/orders', { key: t.readOnlyKey, body: orderBody(t, image) }),
      403,
      'insufficient_permissions',
    );
  });
});

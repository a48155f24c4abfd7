import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deliveryWindow, shippingOptions, zoneOf } from '../../src/modules/shipping/data.ts';
import { isPackstation, validateAddress } from '../../src/modules/shipping/address.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { expectError, products, store } from '../orders/helpers.ts';

describe('POST /v2/quote', () => {
  let t: TestApp;
  let p: ReturnType<typeof products>;
  before(async () => {
    t = await createTestApp();
    p = products(t);
  });
  after(() => t.close());

  const quote = (patch: Record<string, unknown> = {}, key = t.key) =>
    call(t, 'POST', '/v2/quote', {
      key,
      body: {
        quote: {
          storeReference: store(t, 'DEMO1'),
          shippingKind: 'dropship',
          dropshipAddress: { countryCode: 'NL' },
          orderlines: [{ productReference: p.clear, quantity: 2 }],
          ...patch,
        },
      },
    });

  it('lists every level from the lowest the order can ship with, with prices', async () => {
    const res = await quote();
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, {
      shippingOptions: [
        { level: 'basic', price: 345 },
        { level: 'tracked', price: 545 },
        { level: 'express', price: 1095 },
      ],
    });
  });

  it('starts at the requested minimal level', async () => {
    const res = await quote({ dropshipMinimalShippingLevel: 'tracked' });
    assert.deepEqual(
      res.data.shippingOptions.map((o: any) => o.level),
      ['tracked', 'express'],
    );
  });

  it('raises the level when value or weight requires it', async () => {
    const value = await quote({ orderlines: [{ productReference: p.clear, quantity: 7 }] });
    assert.equal(value.data.shippingOptions[0].level, 'tracked');
    // EU basic carries at most 750 g: 20 protectors of 20 g + packaging is fine, 40 is not
    const light = await quote({
      dropshipAddress: { countryCode: 'BE' },
      orderlines: [{ productReference: p.protector, quantity: 5 }],
    });
    assert.equal(light.data.shippingOptions[0].level, 'basic');
    const heavy = await quote({
      dropshipAddress: { countryCode: 'BE' },
      orderlines: [{ productReference: p.protector, quantity: 40 }],
    });
    assert.equal(heavy.data.shippingOptions[0].level, 'tracked');
  });

  it('offers only what the destination has: no basic to the US, tracked only to a Packstation, no express to remote places', async () => {
    assert.deepEqual(
      (await quote({ dropshipAddress: { countryCode: 'US' } })).data.shippingOptions.map((o: any) => o.level),
      ['tracked', 'express'],
    );
    const packstation = { countryCode: 'DE', streetname: 'Packstation 117' };
    assert.deepEqual(
      (await quote({ dropshipAddress: packstation })).data.shippingOptions.map((o: any) => o.level),
      ['tracked'],
    );
    assert.deepEqual(
      (
        await quote({
          dropshipAddress: { countryCode: 'DE', additionalInfo: 'PACKSTATION 5' },
          dropshipMinimalShippingLevel: 'express',
        })
      ).data.shippingOptions.map((o: any) => o.level),
      ['tracked'],
      'lowered when express is not possible',
    );
    assert.deepEqual(
      (
        await quote({ dropshipAddress: { countryCode: 'PN' }, dropshipMinimalShippingLevel: 'express' })
      ).data.shippingOptions.map((o: any) => o.level),
      ['tracked'],
    );
  });

  it('returns an empty list for combined orders', async () => {
    const res = await quote({
      shippingKind: 'combined',
      dropshipAddress: undefined,
      storeReference: store(t, 'DEMO2'),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, { shippingOptions: [] });
    expectError(await quote({ shippingKind: 'combined' }), 400, 'invalid_request', 'body.quote.dropshipAddress');
  });

  it('validates store, products and country with the order-creation codes', async () => {
    expectError(await quote({ storeReference: store(t, 'DEMOSHOP') }), 403, 'store_not_writable_via_api');
    expectError(await quote({ storeReference: store(t, 'OTHER1') }), 400, 'invalid_request', 'storeReference');
    expectError(
      await quote({ orderlines: [{ productReference: p.ended, quantity: 1 }] }),
      400,
      'product_not_orderable',
    );
    expectError(
      await quote({ orderlines: [{ productReference: p.leather, quantity: 1 }] }, t.otherKey),
      400,
      'invalid_request',
      'storeReference',
    );
    expectError(
      await quote(
        { storeReference: store(t, 'OTHER1'), orderlines: [{ productReference: p.leather, quantity: 1 }] },
        t.otherKey,
      ),
      400,
      'product_not_orderable',
    );
    expectError(
      await quote({ orderlines: [{ productReference: p.announced, quantity: 1 }] }),
      400,
      'product_not_orderable',
    );
    expectError(await quote({ dropshipAddress: { countryCode: 'SY' } }), 400, 'invalid_address_denied_country');
    expectError(await quote({ dropshipAddress: undefined }), 400, 'missing_address');
    expectError(await quote({ dropshipAddress: {} }), 400, 'invalid_address', 'countryCode');
  });

  it('skips the e-mail, phone and length checks of order creation', async () => {
    const res = await quote({ dropshipAddress: { countryCode: 'NL', phonenumber: 'n/a', city: 'x'.repeat(80) } });
    assert.equal(res.statusCode, 200, res.body);
  });

  it('takes only the shipping-relevant fields', async () => {
    expectError(await quote({ customIdentifier: 'x' }), 400, 'invalid_request', 'body.quote.customIdentifier');
    expectError(
      await quote({ orderlines: [{ productReference: p.clear, quantity: 1, imageReference: 'Image_x' }] }),
      400,
      'invalid_request',
      'imageReference',
    );
  });
});

describe('shipping data and address rules', () => {
  it('has a delivery window per zone and level', () => {
    assert.deepEqual(deliveryWindow('NL', 'basic'), { minBusinessDays: 1, maxBusinessDays: 2 });
    assert.deepEqual(deliveryWindow('DE', 'tracked'), { minBusinessDays: 2, maxBusinessDays: 4 });
    assert.ok(deliveryWindow('JP', 'express').maxBusinessDays >= 2);
    assert.equal(zoneOf('JP').code, 'world');
  });

  it('prices per item', () => {
    const one = shippingOptions({
      countryCode: 'FR',
      packstation: false,
      valueCents: 1000,
      weightGrams: 50,
      items: 1,
    })[0];
    const three = shippingOptions({
      countryCode: 'FR',
      packstation: false,
      valueCents: 3000,
      weightGrams: 150,
      items: 3,
    })[0];
    assert.equal(three.price - one.price, 100);
  });

  it('recognizes Packstations only in Germany', () => {
    assert.equal(isPackstation({ countryCode: 'DE', streetname: 'Packstation 12' }), true);
    assert.equal(isPackstation({ countryCode: 'AT', streetname: 'Packstation 12' }), false);
    assert.throws(() => validateAddress({ countryCode: 'NL' }, 'a'), /a\.firstname/);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { createOrder, expectError, orderBody, uploadImage } from '../orders/helpers.ts';

describe('carrier configuration', () => {
  it('uses the sandbox in test and the manual carrier in production unless CARRIER says otherwise', () => {
    assert.equal(loadConfig({ APP_ENV: 'test' }).carrier, 'sandbox');
    assert.equal(loadConfig({ APP_ENV: 'production' }).carrier, 'manual');
    assert.equal(loadConfig({ APP_ENV: 'test', CARRIER: 'manual' }).carrier, 'manual');
  });

  it('refuses to start production with the sandbox, which invents tracking numbers', () => {
    assert.throws(
      () => loadConfig({ APP_ENV: 'production', CARRIER: 'sandbox' }),
      (err: Error) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /CARRIER=sandbox .*production/);
        return true;
      },
    );
  });

  it('refuses an unknown carrier, and Sendcloud without both API keys', () => {
    assert.throws(() => loadConfig({ CARRIER: 'dhl' }), /CARRIER must be sandbox, sendcloud or manual; got "dhl"/);
    assert.throws(
      () => loadConfig({ CARRIER: 'sendcloud', SENDCLOUD_PUBLIC_KEY: 'pk' }),
      /needs SENDCLOUD_PUBLIC_KEY and SENDCLOUD_SECRET_KEY/,
    );
    const c = loadConfig({
      APP_ENV: 'production',
      CARRIER: 'sendcloud',
      SENDCLOUD_PUBLIC_KEY: 'pk',
      SENDCLOUD_SECRET_KEY: 'sk',
    });
    assert.deepEqual(c.sendcloud, {
      publicKey: 'pk',
      secretKey: 'sk',
      webhookKey: 'sk',
      apiUrl: 'https://panel.sendcloud.sc/api/v3',
    });
  });
});

describe('the manual carrier in production', () => {
  let t: TestApp;
  let image: string;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    image = await uploadImage(t);
  });
  after(() => t.close());

  const inProduction = async () => {
    const ref = await createOrder(t, orderBody(t, image, { dropshipMinimalShippingLevel: 'tracked' }));
    assert.equal((await operator(t, 'POST', `/orders/${ref}/start-production`)).statusCode, 204);
    return ref;
  };

  it('refuses to ship a tracked parcel without the carrier tracking number, and ships nothing', async () => {
    const ref = await inProduction();
    const res = await operator(t, 'POST', '/shipments', { orderReferences: [ref] });
    expectError(res, 400, 'tracking_number_required');
    assert.match(res.data.message, /body\.trackingNumber is required/);
    const noCarrier = await operator(t, 'POST', '/shipments', { orderReferences: [ref], trackingNumber: '3SABC123' });
    expectError(noCarrier, 400, 'tracking_number_required');
    assert.match(noCarrier.data.message, /body\.carrier is required/);
    const order = (await call(t, 'GET', `/v2/orders/${ref}`)).data.order;
    assert.equal(order.status.code, 'in_production', 'still waiting to ship');
  });

  it('ships with the carrier and number the operator typed', async () => {
    const ref = await inProduction();
    const res = await operator(t, 'POST', '/shipments', {
      orderReferences: [ref],
      carrier: 'PostNL',
      trackingNumber: '3SABCD0123456',
    });
    assert.equal(res.statusCode, 200, res.body);
    const s = (await call(t, 'GET', `/v2/shipments/${res.data.shipment.reference}`)).data.shipment;
    assert.equal(s.carrier, 'PostNL');
    assert.equal(s.trackingNumber, '3SABCD0123456');
  });
});

describe('the sandbox carrier', () => {
  let t: TestApp;
  let image: string;
  before(async () => {
    t = await createTestApp();
    image = await uploadImage(t);
  });
  after(() => t.close());

  it('gives a test shipment DHL and a made-up TEST number, as the test helpers always did', async () => {
    const ref = await createOrder(t, orderBody(t, image, { dropshipMinimalShippingLevel: 'tracked' }));
    await call(t, 'POST', `/v2/test-helpers/orders/${ref}/start-production`);
    const res = await call(t, 'POST', '/v2/test-helpers/shipments', { body: { shipment: { orderReferences: [ref] } } });
    assert.equal(res.statusCode, 200, res.body);
    const s = (await call(t, 'GET', `/v2/shipments/${res.data.shipment.reference}`)).data.shipment;
    assert.equal(s.carrier, 'DHL');
    assert.match(s.trackingNumber, /^TEST\d{14}$/);
  });
});

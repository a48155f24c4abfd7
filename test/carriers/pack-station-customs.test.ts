import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp } from '../support/app.ts';
import { type Agent, OPERATOR_USER, signedIn, textOf } from '../dashboard/helpers.ts';
import { ADDRESS } from '../orders/helpers.ts';
import { unitsInProduction } from '../production/floor-helpers.ts';
import { SendcloudStandIn } from '../support/sendcloud-standin.ts';

describe('the pack station with Sendcloud', () => {
  let t: TestApp;
  let sc: SendcloudStandIn;
  let op: Agent;
  before(async () => {
    sc = await new SendcloudStandIn().start();
    t = await createTestApp({ env: sc.env });
    op = await signedIn(t, OPERATOR_USER, 'console');
  });
  after(async () => {
    await t.close();
    await sc.stop();
  });
  const pack = async (address: Record<string, string>) => {
    const { units } = await unitsInProduction(t, 1, true, {
      dropshipAddress: address,
      dropshipMinimalShippingLevel: 'tracked',
    });
    await op.submit(
      '/console/production/stations/qc',
      { code: units[0], verdict: 'pass' },
      '/console/production/stations/qc',
    );
    const res = await op.submit(
      '/console/production/stations/pack',
      { code: units[0] },
      '/console/production/stations/pack',
    );
    assert.equal(res.statusCode, 200, res.body);
    const shipment = /(Shipment_[0-9a-z]{26})/.exec(res.body)?.[1];
    assert.ok(shipment);
    return { res, shipment };
  };

  it("prints the carrier's label, the slip and, leaving the EU, the customs declaration", async () => {
    const { res, shipment } = await pack({
      ...ADDRESS,
      countryCode: 'US',
      zipcode: '10036',
      city: 'New York',
      state: 'NY',
    });
    const text = textOf(res.body);
    assert.match(text, /Carrier label \(A6\) · Packing slip · Customs declaration \(CN23\): print and attach/);
    assert.ok(!res.body.includes('/shipping-label'), "the carrier's label replaces the service's sheet");
    await t.s.worker.drain();
    assert.deepEqual(sc.invalid, []);
    for (const doc of ['label.pdf', 'customs-declaration.pdf']) {
      const file = await op.get(`/console/shipments/${shipment}/${doc}`);
      assert.equal(file.statusCode, 200, doc);
      assert.equal(file.headers['content-type'], 'application/pdf');
    }
  });

  it('has no customs declaration to print inside the EU', async () => {
    const { res } = await pack({ ...ADDRESS, countryCode: 'NL' });
    const text = textOf(res.body);
    assert.match(text, /Carrier label \(A6\) · Packing slip/);
    assert.ok(!text.includes('Customs declaration'));
  });
});

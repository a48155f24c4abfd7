import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import {
  DAY,
  SHIPPED,
  at,
  categories,
  decide,
  decision,
  getClaim,
  itemIssues,
  packageMissing,
  shippedOrder,
} from '../claims/helpers.ts';
import { ADDRESS, expectError } from '../orders/helpers.ts';
import { SendcloudStandIn } from '../support/sendcloud-standin.ts';

/**
 * What tracking does to the business, the same through both carriers: the sandbox (the test
 * helper's scripted events) and Sendcloud (signed parcel-status webhooks from the stand-in).
 */
interface Via {
  name: string;
  env(): Record<string, string>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Ships a tracked order at SHIPPED; answers the shipment once it has its carrier label. */
  ship(t: TestApp): Promise<string>;
  /** The carrier reports a status for the parcel at `when`. */
  report(t: TestApp, shipment: string, status: 'in_transit' | 'delivered' | 'returned', when: Date): Promise<void>;
}

const sandbox = (): Via => ({
  name: 'the sandbox carrier',
  env: () => ({}),
  start: async () => {},
  stop: async () => {},
  async ship(t) {
    return (await shippedOrder(t, { level: 'tracked' })).shipment;
  },
  async report(t, shipment, status, when) {
    const res = await call(t, 'POST', `/v2/test-helpers/shipments/${shipment}/tracking-events`, {
      body: { trackingEvent: { status, occurred: when.toISOString() } },
    });
    assert.equal(res.statusCode, 200, res.body);
  },
});

// Sendcloud's parcel status ids, as GET /parcels/statuses lists them (docs/carriers.md).
const SENDCLOUD = {
  in_transit: { id: 3, message: 'En route to sorting center' },
  delivered: { id: 11, message: 'Delivered' },
  returned: { id: 62992, message: 'Returned to sender' },
};

const sendcloud = (): Via => {
  const sc = new SendcloudStandIn();
  return {
    name: 'the Sendcloud stand-in',
    env: () => sc.env,
    start: async () => {
      await sc.start();
    },
    stop: () => sc.stop(),
    async ship(t) {
      const { shipment } = await shippedOrder(t, { level: 'tracked' });
      await t.s.worker.drain();
      assert.deepEqual(sc.invalid, []);
      assert.ok(sc.byReference(shipment), 'announced to Sendcloud');
      return shipment;
    },
    async report(t, shipment, status, when) {
      const hook = sc.webhook(sc.byReference(shipment)!, SENDCLOUD[status], when);
      const res = await t.app.inject({
        method: 'POST',
        url: '/integrations/sendcloud/webhooks',
        headers: { 'content-type': 'application/json', 'sendcloud-signature': hook.signature },
        payload: hook.raw,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().stored, 1);
    },
  };
};

for (const make of [sandbox, sendcloud]) {
  const via = make();
  describe(`tracking drives the business through ${via.name}`, () => {
    let t: TestApp;
    before(async () => {
      await via.start();
      t = await createTestApp({ env: { ...via.env(), PARCEL_LOST_AFTER_DAYS: '1' } });
    });
    after(async () => {
      await t.close();
      await via.stop();
    });
    const row = (ref: string) => t.s.shipments.shipmentRow(t.db, t.seed.organizations[0].reference, ref);
    const eventsOf = async (type: string, ref: string) =>
      ((await call(t, 'GET', `/v2/events?type=${type}&limit=100`)).data.events as any[]).filter(
        (e) => e.data.shipment.reference === ref,
      );

    it('returned to sender: flagged for the operator, told to the partner, and settled by a package-missing claim', async () => {
      const ref = await via.ship(t);
      t.clock.set(at(SHIPPED, 3 * DAY));
      await via.report(t, ref, 'in_transit', at(SHIPPED, DAY));
      await via.report(t, ref, 'returned', at(SHIPPED, 2 * DAY));
      const r = (await row(ref))!;
      assert.equal(r.attention, 'returned');
      assert.equal(r.returned_at?.toISOString(), at(SHIPPED, 2 * DAY).toISOString());
      const told = await eventsOf('shipment.tracking_updated', ref);
      assert.ok(
        told.some((e) => e.data.shipment.trackingStatus === 'returned'),
        'the partner hears of the return',
      );
      // Within the delivery window, yet the claim opens: the parcel is on its way back.
      const claim = await packageMissing(t, ref);
      assert.equal(claim.statusCode, 200, claim.body);
      // The partner asked for one case again at a corrected address and a credit for the other
      // (decision 0420): support corrects the shipment's address, then decides the claim.
      const fixed = await operator(t, 'PUT', `/shipments/${ref}/address`, {
        address: { ...ADDRESS, streetname: 'Keizersgracht', housenumber: '12' },
      });
      assert.equal(fixed.statusCode, 200, fixed.body);
      assert.equal((await row(ref))!.label_state, r.label_state, 'a returned parcel is not announced again');
      const decided = await decide(t, claim.data.claim.reference, decision('resolved', [[1, 1, 1, 0]]));
      assert.equal(decided.statusCode, 204, decided.body);
      const settled = await getClaim(t, claim.data.claim.reference);
      assert.equal(settled.status, 'resolved');
      const [replacement] = settled.replacementOrderReferences;
      const order = (await call(t, 'GET', `/v2/orders/${replacement}`)).data.order;
      const to = (await call(t, 'GET', `/v2/addresses/${order.dropshipAddressReference}`)).data.address;
      assert.equal(to.streetname, 'Keizersgracht', 'the replacement goes to the corrected address');
    });

    it('lost: a day without a scan (PARCEL_LOST_AFTER_DAYS=1) needs attention and opens the package-missing claim', async () => {
      const ref = await via.ship(t);
      t.clock.set(at(SHIPPED, 20 * 3600_000));
      await via.report(t, ref, 'in_transit', at(SHIPPED, 3600_000));
      await t.s.shipments.checkTracking();
      assert.equal((await row(ref))!.attention, null, 'a quiet night is not lost yet');
      expectError(await packageMissing(t, ref), 409, 'shipment_too_recent');
      // PARCEL_LOST_AFTER_DAYS=1: a day without a scan, well inside the delivery window.
      t.clock.set(at(SHIPPED, DAY + 2 * 3600_000));
      await t.s.shipments.checkTracking();
      const r = (await row(ref))!;
      assert.equal(r.attention, 'lost');
      const needing = await t.db.query<{ id: string }>('SELECT id FROM shipments WHERE attention IS NOT NULL');
      assert.ok(
        needing.some((s) => s.id === ref),
        'listed under needs attention',
      );
      const claim = await packageMissing(t, ref);
      assert.equal(claim.statusCode, 200, claim.body);
    });

    it('a later scan clears the lost flag: the parcel moves again', async () => {
      const ref = await via.ship(t);
      t.clock.set(at(SHIPPED, 6 * DAY));
      await t.s.shipments.checkTracking();
      assert.equal((await row(ref))!.attention, 'lost');
      await via.report(t, ref, 'in_transit', at(SHIPPED, 5 * DAY));
      assert.equal((await row(ref))!.attention, null);
    });

    it("the damage claim's 100-day warranty counts from the delivery date", async () => {
      const ref = await via.ship(t);
      const delivered = at(SHIPPED, 20 * DAY);
      t.clock.set(at(SHIPPED, 21 * DAY));
      await via.report(t, ref, 'delivered', delivered);
      assert.equal((await row(ref))!.delivered_at?.toISOString(), delivered.toISOString());
      const order = (await call(t, 'GET', `/v2/shipments/${ref}`)).data.shipment.orders[0].reference;
      const cat = await categories(t);
      const body = {
        shipmentReference: ref,
        orderReference: order,
        claimlines: [{ orderlineIndex: 1, quantity: 1, claimcategoryReference: cat['Wrong item'] }],
      };
      // 110 days after it left, 90 after it arrived: within the warranty.
      t.clock.set(at(SHIPPED, 110 * DAY));
      const inTime = await itemIssues(t, body);
      assert.equal(inTime.statusCode, 200, inTime.body);
      assert.equal((await call(t, 'POST', `/v2/claims/${inTime.data.claim.reference}/retract`)).statusCode, 204);
      t.clock.set(at(delivered.toISOString(), 100 * DAY + 3600_000));
      const late = await itemIssues(t, body);
      expectError(late, 409, 'warranty_expired');
      assert.match(late.data.message, /was delivered on/);
    });
  });
}

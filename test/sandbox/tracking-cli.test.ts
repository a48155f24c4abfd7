import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DAY, SHIPPED, at, shippedOrder } from '../claims/helpers.ts';
import { type TestApp, call } from '../support/app.ts';

import { podctl, podctlServer } from '../support/podctl.ts';

describe('podctl shipments tracking-events', () => {
  let t: TestApp;
  let url: string;
  let dir: string;
  let env: Record<string, string>;
  let close: () => Promise<void>;
  before(async () => {
    ({ t, url, dir, env, close } = await podctlServer('podctl-tracking-'));
  });
  after(() => close());

  it('feeds a batch, keeps the good events, names each refusal and ignores a replay', async () => {
    const { shipment } = await shippedOrder(t, { level: 'tracked' });
    t.clock.set(at(SHIPPED, 2 * DAY));
    const events = [
      { shipmentReference: shipment, carrierEventId: 'k1', status: 'in_transit', occurred: at(SHIPPED, 3600_000) },
      { shipmentReference: shipment, carrierEventId: 'k2', status: 'delivered', occurred: at(SHIPPED, DAY) },
      { shipmentReference: shipment, carrierEventId: 'k3', status: 'vanished', occurred: at(SHIPPED, DAY) },
      { trackingNumber: 'NO-SUCH-NUMBER', carrierEventId: 'k4', status: 'delivered', occurred: at(SHIPPED, DAY) },
    ];
    const file = join(dir, 'events.json');
    writeFileSync(file, JSON.stringify({ trackingEvents: events }));

    const first = await podctl(['--url', url, 'shipments', 'tracking-events', file, '--json'], env);
    assert.equal(first.code, 0, first.stderr);
    const results = JSON.parse(first.stdout).results;
    assert.deepEqual(
      results.map((r: any) => r.result),
      ['accepted', 'accepted', 'refused', 'refused'],
    );
    assert.match(results[2].reason, /unknown status/);
    assert.match(results[3].reason, /unknown shipment/);

    // A carrier that resends its feed (or a late copy of an event) changes nothing.
    writeFileSync(file, JSON.stringify(events.slice(0, 2)));
    const again = await podctl(['--url', url, 'shipments', 'tracking-events', file], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^0\s+duplicate/m);
    assert.match(again.stdout, /^1\s+duplicate/m);
    const got = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.equal(got.trackingEvents.length, 2);
    assert.equal(got.trackingStatus, 'delivered');

    // A late in_transit from the carrier is kept in the history but does not undo the delivery.
    writeFileSync(
      file,
      JSON.stringify([
        { shipmentReference: shipment, carrierEventId: 'k5', status: 'in_transit', occurred: at(SHIPPED, 7200_000) },
      ]),
    );
    assert.equal((await podctl(['--url', url, 'shipments', 'tracking-events', file], env)).code, 0);
    const late = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.equal(late.trackingEvents.length, 3);
    assert.equal(late.trackingStatus, 'delivered');

    writeFileSync(file, '{"trackingEvents": 3}');
    const bad = await podctl(['--url', url, 'shipments', 'tracking-events', file], env);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /expected a list of tracking events/);
  });
});

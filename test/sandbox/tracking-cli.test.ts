import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DAY, SHIPPED, at, shippedOrder } from '../claims/helpers.ts';
import { call } from '../support/app.ts';
import { podctlSuite } from '../support/podctl.ts';

describe('podctl shipments tracking-events', () => {
  const server = podctlSuite('podctl-tracking-');

  it('feeds a batch, keeps the good events, names each refusal and ignores a replay', async () => {
    const { shipment } = await shippedOrder(server.t, { level: 'tracked' });
    server.t.clock.set(at(SHIPPED, 2 * DAY));
    const events = [
      { shipmentReference: shipment, carrierEventId: 'k1', status: 'in_transit', occurred: at(SHIPPED, 3600_000) },
      { shipmentReference: shipment, carrierEventId: 'k2', status: 'delivered', occurred: at(SHIPPED, DAY) },
      { shipmentReference: shipment, carrierEventId: 'k3', status: 'vanished', occurred: at(SHIPPED, DAY) },
      { trackingNumber: 'NO-SUCH-NUMBER', carrierEventId: 'k4', status: 'delivered', occurred: at(SHIPPED, DAY) },
    ];
    const file = join(server.dir, 'events.json');
    writeFileSync(file, JSON.stringify({ trackingEvents: events }));

    const first = await server.run('shipments', 'tracking-events', file, '--json');
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
    const again = await server.run('shipments', 'tracking-events', file);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^0\s+duplicate/m);
    assert.match(again.stdout, /^1\s+duplicate/m);
    const got = (await call(server.t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.equal(got.trackingEvents.length, 2);
    assert.equal(got.trackingStatus, 'delivered');

    // A late in_transit from the carrier is kept in the history but does not undo the delivery.
    writeFileSync(
      file,
      JSON.stringify([
        { shipmentReference: shipment, carrierEventId: 'k5', status: 'in_transit', occurred: at(SHIPPED, 7200_000) },
      ]),
    );
    assert.equal((await server.run('shipments', 'tracking-events', file)).code, 0);
    const late = (await call(server.t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.equal(late.trackingEvents.length, 3);
    assert.equal(late.trackingStatus, 'delivered');

    writeFileSync(file, '{"trackingEvents": 3}');
    const bad = await server.run('shipments', 'tracking-events', file);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /expected a list of tracking events/);
  });
});

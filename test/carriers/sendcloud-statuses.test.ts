import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SENDCLOUD_STATUSES, mapSendcloudStatus } from '../../src/modules/carriers/sendcloud/statuses.ts';

describe("Sendcloud's parcel statuses", () => {
  it('maps every published id and v3 code by the documented table', () => {
    const cases: Array<[string, string, string | null]> = [
      ['1000', 'Ready to send', null],
      ['1', 'Announced', null],
      ['3', 'En route to sorting center', 'in_transit'],
      ['12', 'Awaiting customer pickup', 'out_for_delivery'],
      ['11', 'Delivered', 'delivered'],
      ['93', 'Shipment collected by customer', 'delivered'],
      ['8', 'Delivery attempt failed', 'exception'],
      ['80', 'Unable to deliver', 'exception'],
      ['94', 'Parcel cancellation failed.', null],
      ['2000', 'Cancelled', null],
      ['62989', 'At Customs', 'in_transit'],
      ['62990', 'At sorting centre', 'in_transit'],
      ['62991', 'Refused by recipient', 'exception'],
      ['62992', 'Returned to sender', 'returned'],
      ['62996', 'Exception', 'exception'],
      ['62997', 'Address invalid', 'exception'],
      ['READY_TO_SEND', 'Ready to send', null],
      ['ANNOUNCING', 'Being announced', null],
      ['TO_SORTING', 'En route to sorting center', 'in_transit'],
      ['DRIVER_ON_ROUTE', 'Driver en route', 'out_for_delivery'],
      ['DELIVERED', 'Delivered', 'delivered'],
      ['DELIVERY_FAILED', 'Delivery attempt failed', 'exception'],
      ['RETURNED_TO_SENDER', 'Returned to sender', 'returned'],
      ['CANCELLED', 'Cancelled', null],
    ];
    for (const [code, message, status] of cases) {
      assert.equal(mapSendcloudStatus(code, message), status, `${code} ${message}`);
      assert.equal(SENDCLOUD_STATUSES[code]?.meaning, message, `${code} is named as Sendcloud names it`);
    }
  });

  it("maps an id it does not know by Sendcloud's status name, and keeps anything else unmapped", () => {
    assert.equal(mapSendcloudStatus('70001', 'Returned to sender'), 'returned');
    assert.equal(mapSendcloudStatus('70002', 'at customs'), 'in_transit');
    assert.equal(mapSendcloudStatus('70003', 'Parcel held for inspection'), null);
    assert.equal(mapSendcloudStatus('70004', null), null);
  });
});

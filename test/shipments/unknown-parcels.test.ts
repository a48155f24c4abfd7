import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Carrier, CarrierStatusIn } from '../../src/modules/carriers/port.ts';
import { carrierTracking } from '../../src/modules/shipments/carrier-tracking.ts';
import { type TestApp, createTestApp } from '../support/app.ts';

describe('carrier statuses for parcels no shipment knows', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('logs each unknown parcel once, and still logs new ones after more than it remembers', async () => {
    const warned: string[] = [];
    const tracking = carrierTracking({
      db: t.db,
      clock: t.clock,
      log: { warn: (obj) => warned.push((obj as { parcelId: string }).parcelId) },
      carrier: { kind: 'sendcloud' } as Carrier,
      ingest: async () => [],
      lostAfterDays: 30,
      unknownRemembered: 3,
    });
    const status = (parcelId: string): CarrierStatusIn => ({
      parcelId,
      trackingNumber: null,
      code: '11',
      message: 'Delivered',
      occurred: t.clock.now(),
    });
    const receive = async (...ids: string[]) => tracking.receive(ids.map(status));
    assert.deepEqual(await receive('u1', 'u1', 'u2'), { stored: 0, ignored: 3 });
    assert.deepEqual(warned, ['u1', 'u2'], 'once each');
    await receive('u3', 'u4', 'u5');
    assert.deepEqual(warned, ['u1', 'u2', 'u3', 'u4', 'u5'], 'new parcels past the bound are still logged');
    await receive('u5', 'u4', 'u3');
    assert.equal(warned.length, 5, 'the last ones seen are remembered');
    await receive('u1');
    assert.deepEqual(warned.slice(5), ['u1'], 'a parcel forgotten for newer ones is logged again, once');
  });
});

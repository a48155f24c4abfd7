import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { shippedOrder } from '../claims/helpers.ts';

describe('tracking page ship date', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('is the calendar date in Europe/Amsterdam, not in UTC', async () => {
    // 22:30 UTC on 1 June is 00:30 on 2 June in Amsterdam (summer time, +02:00).
    const { shipment } = await shippedOrder(t, { shippedAt: '2026-06-01T22:30:00.000Z', level: 'tracked' });
    const s = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    const page = await call(t, 'GET', new URL(s.trackingUrl).pathname, { key: null });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="ship-date"><time datetime="2026-06-02">2026-06-02<\/time>/);
  });
});

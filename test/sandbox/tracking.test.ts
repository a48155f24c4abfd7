import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { DAY, SHIPPED, at, shippedOrder } from '../claims/helpers.ts';
import { expectError } from '../orders/helpers.ts';

const script = (t: TestApp, shipment: string, body: unknown, key = t.key) =>
  call(t, 'POST', `/v2/test-helpers/shipments/${shipment}/tracking-events`, { key, body });

const eventsOf = async (t: TestApp, type: string) =>
  (await call(t, 'GET', `/v2/events?type=${type}&limit=100`)).data.events as any[];

describe('shipment tracking events', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('a scripted journey shows on the shipment, in time order, and fires tracking webhooks', async () => {
    const { shipment, order } = await shippedOrder(t, { level: 'tracked' });
    t.clock.set(at(SHIPPED, 3 * DAY));
    const res = await script(t, shipment, {
      trackingEvents: [
        { status: 'in_transit', occurred: at(SHIPPED, 3600_000).toISOString(), location: 'Amsterdam hub' },
        { status: 'out_for_delivery', occurred: at(SHIPPED, DAY).toISOString(), location: 'Berlin' },
        { status: 'delivered', occurred: at(SHIPPED, DAY + 5 * 3600_000).toISOString(), description: 'Left at door' },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.shipment.trackingStatus, 'delivered');
    assert.deepEqual(
      res.data.shipment.trackingEvents.map((e: any) => e.status),
      ['in_transit', 'out_for_delivery', 'delivered'],
    );
    const got = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.deepEqual(got.trackingEvents, res.data.shipment.trackingEvents);
    assert.equal(got.trackingEvents[0].location, 'Amsterdam hub');
    assert.equal(got.trackingEvents[2].description, 'Left at door');

    // A late carrier message about the journey does not move a delivered parcel back.
    const late = await script(t, shipment, {
      trackingEvent: { status: 'in_transit', occurred: at(SHIPPED, 2 * 3600_000).toISOString(), location: 'Utrecht' },
    });
    assert.equal(late.data.shipment.trackingStatus, 'delivered');
    assert.equal(late.data.shipment.trackingEvents[1].location, 'Utrecht');

    const updated = (await eventsOf(t, 'shipment.tracking_updated')).filter(
      (e) => e.data.shipment.reference === shipment,
    );
    assert.equal(updated.length, 2);
    const delivered = (await eventsOf(t, 'shipment.delivered')).filter((e) => e.data.shipment.reference === shipment);
    assert.equal(delivered.length, 1, 'delivered once, not again on the late event');
    assert.equal(delivered[0].data.shipment.trackingStatus, 'delivered');

    // Every event about the shipment carries its full state and the next number of its sequence.
    const created = (await eventsOf(t, 'shipment.created')).find((e) => e.data.shipment.reference === shipment);
    const seqs = [created, ...updated, ...delivered].map((e) => e.data.sequence).sort((a, b) => a - b);
    assert.deepEqual(seqs, [1, 2, 3, 4]);
    const orderEvents = [
      ...(await eventsOf(t, 'order.created')),
      ...(await eventsOf(t, 'order.updated')),
      ...(await eventsOf(t, 'order.shipped')),
    ]
      .filter((e) => e.data.order.reference === order)
      .sort((a, b) => a.data.sequence - b.data.sequence);
    assert.deepEqual(
      orderEvents.map((e) => e.data.sequence),
      orderEvents.map((_, i) => i + 1),
      'order events are numbered 1, 2, 3… per order',
    );
    assert.equal(orderEvents[0].type, 'order.created');
    assert.equal(orderEvents.at(-1).type, 'order.shipped');
    assert.equal(orderEvents.at(-1).data.order.status.code, 'shipped', 'with the full current state');
  });

  it('refuses an unknown status, an event before the shipment left, and a basic shipment', async () => {
    const { shipment } = await shippedOrder(t, { level: 'tracked' });
    t.clock.set(at(SHIPPED, DAY));
    expectError(await script(t, shipment, { trackingEvent: { status: 'teleported' } }), 400, 'invalid_request');
    const early = await script(t, shipment, {
      trackingEvents: [
        { status: 'in_transit' },
        { status: 'delivered', occurred: at(SHIPPED, -3600_000).toISOString() },
      ],
    });
    expectError(early, 400, 'tracking_event_before_shipment');
    assert.match(early.data.message, /trackingEvents\[1\]\.occurred/);
    const future = await script(t, shipment, {
      trackingEvent: { status: 'delivered', occurred: at(SHIPPED, 3 * DAY).toISOString() },
    });
    expectError(future, 400, 'invalid_request');
    expectError(
      await script(t, shipment, { trackingEvent: { status: 'in_transit' }, extra: 1 }),
      400,
      'invalid_request',
    );
    expectError(await script(t, shipment, { trackingEvents: [] }), 400, 'invalid_request');
    const after = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.deepEqual(after.trackingEvents, [], 'a refused script stores nothing');
    assert.equal(after.trackingStatus, null);

    const basic = await shippedOrder(t, { level: 'basic' });
    t.clock.set(at(SHIPPED, DAY));
    expectError(
      await script(t, basic.shipment, { trackingEvent: { status: 'in_transit' } }),
      409,
      'shipment_not_tracked',
    );
  });

  it("another organization's shipment is not found", async () => {
    const { shipment } = await shippedOrder(t, { level: 'tracked' });
    expectError(await script(t, shipment, { trackingEvent: { status: 'in_transit' } }, t.otherKey), 404, 'not_found');
    expectError(await script(t, 'Shipment_nope', { trackingEvent: { status: 'in_transit' } }), 404, 'not_found');
  });

  it('the operator feed is idempotent per carrier event and refuses bad items one by one', async () => {
    const { shipment } = await shippedOrder(t, { level: 'tracked' });
    t.clock.set(at(SHIPPED, 2 * DAY));
    const number = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment.trackingNumber;
    const batch = {
      trackingEvents: [
        {
          shipmentReference: shipment,
          carrierEventId: 'c1',
          status: 'in_transit',
          occurred: at(SHIPPED, 3600_000).toISOString(),
        },
        { trackingNumber: number, carrierEventId: 'c2', status: 'delivered', occurred: at(SHIPPED, DAY).toISOString() },
        {
          shipmentReference: 'Shipment_0123456789abcdefghjkmnpqrs',
          carrierEventId: 'c3',
          status: 'delivered',
          occurred: at(SHIPPED, DAY).toISOString(),
        },
        {
          shipmentReference: shipment,
          carrierEventId: 'c4',
          status: 'lost_in_space',
          occurred: at(SHIPPED, DAY).toISOString(),
        },
        {
          shipmentReference: shipment,
          carrierEventId: 'c5',
          status: 'exception',
          occurred: at(SHIPPED, -DAY).toISOString(),
        },
      ],
    };
    const res = await operator(t, 'POST', '/tracking-events', batch);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.data.results.map((r: any) => r.result),
      ['accepted', 'accepted', 'refused', 'refused', 'refused'],
    );
    assert.match(res.data.results[2].reason, /unknown shipment/);
    assert.match(res.data.results[3].reason, /unknown status/);
    assert.match(res.data.results[4].reason, /before the shipment left/);
    const again = await operator(t, 'POST', '/tracking-events', { trackingEvents: batch.trackingEvents.slice(0, 2) });
    assert.deepEqual(
      again.data.results.map((r: any) => r.result),
      ['duplicate', 'duplicate'],
    );
    const got = (await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment;
    assert.equal(got.trackingEvents.length, 2);
    assert.equal(got.trackingStatus, 'delivered');
    expectError(await operator(t, 'POST', '/tracking-events', { trackingEvents: [] }), 400, 'invalid_request');
  });

  it('the tracking page shows the progress and the history in Amsterdam time', async () => {
    const { shipment } = await shippedOrder(t, { shippedAt: '2026-06-01T22:30:00.000Z', level: 'tracked' });
    t.clock.set('2026-06-03T12:00:00Z');
    await script(t, shipment, {
      trackingEvents: [
        { status: 'in_transit', occurred: '2026-06-02T06:00:00Z', location: 'Amsterdam hub' },
        { status: 'out_for_delivery', occurred: '2026-06-03T07:00:00Z', location: 'Berlin' },
      ],
    });
    const url = new URL((await call(t, 'GET', `/v2/shipments/${shipment}`)).data.shipment.trackingUrl);
    const page = await t.app.inject({ method: 'GET', url: url.pathname });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /out for delivery today/);
    assert.match(page.body, /<li class="done current" aria-current="step">Out for delivery<\/li>/);
    assert.match(page.body, /Amsterdam hub/);
    assert.match(
      page.body,
      /<time datetime="2026-06-02">2026-06-02<\/time>/,
      'shipped after 22:00 UTC is the next day in Amsterdam',
    );
  });
});

describe('tracking test helper in production', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
  });
  after(() => t.close());
  it('does not exist', async () => {
    const res = await call(
      t,
      'POST',
      '/v2/test-helpers/shipments/Shipment_0123456789abcdefghjkmnpqrs/tracking-events',
      {
        key: t.seed.organizations[0].apiKeys.full,
        body: { trackingEvent: { status: 'in_transit' } },
      },
    );
    assert.equal(res.statusCode, 404);
  });
});

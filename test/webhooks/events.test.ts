import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { clearEndpoints, createEndpoint, deliveriesOf, recordEvent } from './helpers.ts';
import { scheduleMaintenance } from '../../src/modules/maintenance/jobs.ts';

const DAY = 24 * 3600_000;
const RECEIVER = 'https://hooks.partner.example/pod?x=1';

describe('events API: listing, paging, transactions and retention', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('pages through events newest first, with and without a type, and another organization’s stay out', async () => {
    const other = t.seed.organizations[1].reference;
    const mine: string[] = [];
    const typed: string[] = [];
    for (let i = 0; i < 7; i++) {
      const type = i % 2 ? 'claim.updated' : 'claim.created';
      const e = await recordEvent(t, type, { claim: { n: i } });
      await recordEvent(t, type, { claim: { n: i } }, other);
      mine.unshift(e.reference);
      if (type === 'claim.created') typed.unshift(e.reference);
    }
    const all = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await call(
          t,
          'GET',
          `/v2/events?limit=3&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(page.statusCode, 200, page.body);
        seen.push(...page.data.events.map((e: any) => e.reference));
        cursor = page.data.nextCursor;
      } while (cursor);
      return seen;
    };
    assert.deepEqual((await all('')).slice(0, 7), mine);
    assert.deepEqual((await all('type=claim.created')).slice(0, typed.length), typed);
  });

  it('lists events with type and time filters, and shows one event', async () => {
    const start = t.clock.now();
    t.clock.advance(1000);
    const e1 = await recordEvent(t, 'render.completed', { render: { reference: 'Render_0123456789abcdefghjkmnpqrs' } });
    t.clock.advance(1000);
    const e2 = await recordEvent(t, 'render.failed', { render: { reference: 'Render_0123456789abcdefghjkmnpqrt' } });
    const mid = new Date(start.getTime() + 1500).toISOString();
    const byType = await call(t, 'GET', '/v2/events?type=render.completed');
    assert.deepEqual(
      byType.data.events.map((e: any) => e.reference),
      [e1.reference],
    );
    const after = await call(t, 'GET', `/v2/events?createdAfter=${encodeURIComponent(mid)}`);
    assert.deepEqual(
      after.data.events.map((e: any) => e.reference),
      [e2.reference],
    );
    const before = await call(
      t,
      'GET',
      `/v2/events?createdBefore=${encodeURIComponent(mid)}&createdAfter=${encodeURIComponent(start.toISOString())}`,
    );
    assert.deepEqual(
      before.data.events.map((e: any) => e.reference),
      [e1.reference],
    );
    const one = await call(t, 'GET', `/v2/events/${e2.reference}`);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.data.event, {
      reference: e2.reference,
      type: 'render.failed',
      timestamp: t.clock.now().toISOString(),
      data: { render: { reference: 'Render_0123456789abcdefghjkmnpqrt' }, sequence: 1 },
    });
    for (const q of ['type=order.exploded', 'createdAfter=yesterday', 'limit=-1', 'extra=1']) {
      const bad = await call(t, 'GET', `/v2/events?${q}`);
      assert.equal(bad.statusCode, 400, q);
      assert.equal(bad.data.code, 'invalid_request');
    }
  });

  it('writes events in the caller’s transaction: a rollback leaves no event, delivery or job', async () => {
    await clearEndpoints(t);
    await createEndpoint(t, RECEIVER, ['order.updated']);
    const count = async () =>
      (
        await t.db.query(
          `SELECT (SELECT count(*)::int FROM events) AS e, (SELECT count(*)::int FROM webhook_deliveries) AS d, (SELECT count(*)::int FROM jobs WHERE kind = 'webhooks.deliver') AS j`,
        )
      )[0];
    const before = await count();
    let ref = '';
    await assert.rejects(
      t.db.tx(async (tx) => {
        ref = (
          await t.s.events.record(tx, {
            organizationId: t.seed.organizations[0].reference,
            type: 'order.updated',
            data: { order: {} },
          })
        ).reference;
        throw new Error('the order change failed');
      }),
      /the order change failed/,
    );
    assert.deepEqual(await count(), before);
    assert.equal((await call(t, 'GET', `/v2/events/${ref}`)).statusCode, 404);
    await recordEvent(t, 'order.updated');
    const afterCommit = await count();
    assert.deepEqual([afterCommit.e - before.e, afterCommit.d - before.d, afterCommit.j - before.j], [1, 1, 1]);
    await assert.rejects(
      t.db.tx((tx) =>
        t.s.events.record(tx, { organizationId: t.seed.organizations[0].reference, type: 'order.nope', data: {} }),
      ),
      /unknown event type/,
    );
    await clearEndpoints(t);
  });

  it('keeps events for 30 days, then purges them with their deliveries', async () => {
    await clearEndpoints(t);
    // The hourly maintenance job purges them (main.ts starts its chain).
    await scheduleMaintenance(t.s);
    const ep = await createEndpoint(t, RECEIVER, ['shipment.created']);
    const old = await recordEvent(t, 'shipment.created', { shipment: {} });
    await call(t, 'DELETE', `/v2/webhook-endpoints/${ep.reference}`);
    await t.s.worker.drain();
    t.clock.advance(29 * DAY);
    const recent = await recordEvent(t, 'shipment.created', { shipment: {} });
    await t.s.worker.drain();
    assert.equal((await call(t, 'GET', `/v2/events/${old.reference}`)).statusCode, 200, 'kept for 30 days');
    t.clock.advance(2 * DAY);
    await t.s.worker.drain();
    assert.equal((await call(t, 'GET', `/v2/events/${old.reference}`)).statusCode, 404);
    assert.deepEqual(await deliveriesOf(t, `eventReference=${old.reference}`), []);
    assert.equal((await call(t, 'GET', `/v2/events/${recent.reference}`)).statusCode, 200);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import {
  DAY,
  SHIPPED,
  at,
  categories,
  decide,
  decision,
  expectError,
  getClaim,
  itemClaim,
  packageMissing,
} from './helpers.ts';

describe('claims: retraction, other organizations, the list and events', () => {
  let t: TestApp;
  let cat: Record<string, string>;
  before(async () => {
    t = await createTestApp();
    cat = await categories(t);
  });
  after(() => t.close());

  it('retracts a pending claim once', async () => {
    const { claim, shipment } = await itemClaim(t, cat, [1], [[1, 1]]);
    expectError(await packageMissing(t, shipment), 409, 'shipment_already_claimed');
    expectError(
      await call(t, 'POST', `/v2/claims/${claim}/retract`, { key: t.readOnlyKey }),
      403,
      'insufficient_permissions',
    );
    expectError(await call(t, 'POST', `/v2/claims/${claim}/retract`, { key: t.otherKey }), 404, 'not_found');
    const res = await call(t, 'POST', `/v2/claims/${claim}/retract`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    expectError(await call(t, 'POST', `/v2/claims/${claim}/retract`), 409, 'claim_not_pending');
    const c = await getClaim(t, claim);
    assert.equal(c.status, 'retracted');
    assert.equal(c.retracted, t.clock.now().toISOString());
    assert.equal(c.decision, null);
    expectError(await decide(t, claim, decision('rejected', [[1, 0, 0, 1]])), 409, 'claim_not_pending');
    // a retracted claim was withdrawn: the shipment can now be claimed as missing
    assert.equal((await packageMissing(t, shipment)).statusCode, 200);
  });

  it('keeps claims of other organizations out', async () => {
    const { claim } = await itemClaim(t, cat, [1], [[1, 1]]);
    expectError(await call(t, 'GET', `/v2/claims/${claim}`, { key: t.otherKey }), 404, 'not_found');
    expectError(await decide(t, claim, decision('rejected', [[1, 0, 0, 1]]), t.otherKey), 404, 'not_found');
    for (const bad of ['nope', 'Claim_0123456789abcdefghjkmnpqrs', 'Order_0123456789abcdefghjkmnpqrs', 'Claim_UPPER']) {
      expectError(await call(t, 'GET', `/v2/claims/${bad}`), 404, 'not_found');
      expectError(await call(t, 'POST', `/v2/claims/${bad}/retract`), 404, 'not_found');
    }
    const other = await call(t, 'GET', '/v2/claims?limit=100', { key: t.otherKey });
    assert.equal(other.statusCode, 200);
    assert.ok(!other.data.claims.some((c: any) => c.reference === claim));
  });

  it('lists open claims and those closed within 14 days, newest first, paginated', async () => {
    const a = await itemClaim(t, cat, [1], [[1, 1]]);
    t.clock.advance(1000);
    const b = await itemClaim(t, cat, [1], [[1, 1]]);
    t.clock.advance(1000);
    const c = await itemClaim(t, cat, [1], [[1, 1]]);
    const closedAt = at(SHIPPED, 10 * DAY + 5000);
    t.clock.set(closedAt);
    assert.equal((await call(t, 'POST', `/v2/claims/${b.claim}/retract`)).statusCode, 204);
    assert.equal((await decide(t, c.claim, decision('resolved', [[1, 0, 1, 0]]))).statusCode, 204);

    const refs = async (query = '') => {
      const res = await call(t, 'GET', `/v2/claims${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.data.claims
        .map((x: any) => x.reference)
        .filter((r: string) => [a.claim, b.claim, c.claim].includes(r));
    };
    t.clock.set(at(closedAt.toISOString(), 14 * DAY - 1000));
    assert.deepEqual(await refs('?limit=100'), [c.claim, b.claim, a.claim]);
    t.clock.set(at(closedAt.toISOString(), 14 * DAY + 1000));
    assert.deepEqual(await refs('?limit=100'), [a.claim], 'closed more than 14 days ago');
    assert.deepEqual(
      await refs(`?limit=100&closedAfter=${encodeURIComponent(at(closedAt.toISOString(), -1000).toISOString())}`),
      [c.claim, b.claim, a.claim],
    );
    assert.deepEqual(await refs(`?limit=100&closedAfter=${encodeURIComponent('2026-06-11T10:00:10+02:00')}`), [
      c.claim,
      b.claim,
      a.claim,
    ]);
    expectError(await call(t, 'GET', '/v2/claims?closedAfter=yesterday'), 400, 'invalid_request', 'closedAfter');
    expectError(await call(t, 'GET', '/v2/claims?cursor=abc'), 400, 'invalid_cursor');
    expectError(await call(t, 'GET', '/v2/claims?sort=asc'), 400, 'invalid_request');

    const full = await call(t, 'GET', '/v2/claims?limit=100&closedAfter=2020-01-01T00:00:00Z');
    const item = full.data.claims.find((x: any) => x.reference === c.claim);
    assert.deepEqual(Object.keys(item).sort(), [
      'claimcategories',
      'created',
      'decided',
      'orderReference',
      'reference',
      'retracted',
      'status',
    ]);
    assert.deepEqual(item.claimcategories, [{ reference: cat['Wrong item'], name: 'Wrong item' }]);
    assert.equal(item.status, 'resolved');
    assert.equal(item.decided, closedAt.toISOString());
    assert.equal(item.retracted, null);
    assert.equal(item.orderReference, c.order);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await call(
        t,
        'GET',
        `/v2/claims?limit=2&closedAfter=2020-01-01T00:00:00Z${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.data.claims.length <= 2);
      if (res.data.claims.length < 2) assert.equal(res.data.nextCursor, null);
      seen.push(...res.data.claims.map((x: any) => x.reference));
      cursor = res.data.nextCursor;
    } while (cursor);
    assert.deepEqual(
      seen,
      full.data.claims.map((x: any) => x.reference),
    );
    assert.equal(new Set(seen).size, seen.length);
  });

  it('records claim.created and claim.updated events with the claim as GET returns it', async () => {
    const { claim } = await itemClaim(t, cat, [1], [[1, 1]]);
    assert.equal((await call(t, 'POST', `/v2/claims/${claim}/retract`)).statusCode, 204);
    const rows = await t.db.query<{ type: string; data: any }>(
      `SELECT type, data FROM events WHERE data->'claim'->>'reference' = $1 ORDER BY created_at, type`,
      [claim],
    );
    assert.deepEqual(
      rows.map((r) => [r.type, r.data.claim.status]),
      [
        ['claim.created', 'pending'],
        ['claim.updated', 'retracted'],
      ],
    );
    assert.deepEqual(rows[1].data.claim, await getClaim(t, claim));
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { ADDRESS } from '../orders/helpers.ts';
import {
  DAY,
  SHIPPED,
  at,
  categories,
  expectError,
  getClaim,
  itemIssues,
  packageMissing,
  shippedOrder,
  uploadEvidence,
} from './helpers.ts';

/** Basic to NL: delivery window 2 business days (to Wednesday); shipped Monday 2026-06-01, filing opens Thursday 2026-06-04 00:00 Amsterdam. */
const OPENS = '2026-06-03T22:00:00.000Z';

describe('claim categories', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('lists the seeded categories and the ones operators add', async () => {
    const res = await call(t, 'GET', '/v2/claimcategories');
    assert.equal(res.statusCode, 200, res.body);
    const byName = Object.fromEntries(res.data.claimcategories.map((c: any) => [c.name, c]));
    assert.equal(byName['Package missing'].evidenceRequired, false);
    assert.equal(byName['Print defect'].evidenceRequired, true);
    assert.equal(byName['Wrong item'].evidenceRequired, false);
    for (const c of res.data.claimcategories) assert.match(c.reference, /^Claimcategory_[0-9a-hjkmnp-tv-z]{26}$/);

    const added = await call(t, 'POST', '/operator/claimcategories', {
      key: null,
      body: { name: 'Missing item', evidenceRequired: false },
      headers: { authorization: 'Bearer test-operator-token' },
    });
    assert.equal(added.statusCode, 200, added.body);
    const again = await call(t, 'POST', '/operator/claimcategories', {
      key: null,
      body: { name: 'missing item', evidenceRequired: true },
      headers: { authorization: 'Bearer test-operator-token' },
    });
    expectError(again, 409, 'claimcategory_name_in_use');
    const list = await call(t, 'GET', '/v2/claimcategories');
    assert.ok(
      list.data.claimcategories.some(
        (c: any) => c.reference === added.data.claimcategory.reference && c.name === 'Missing item',
      ),
    );
    // the default categories are created once
    await t.s.claims.ensureDefaultCategories();
    assert.equal(
      (await call(t, 'GET', '/v2/claimcategories')).data.claimcategories.length,
      list.data.claimcategories.length,
    );
  });
});

describe('package-missing claims', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('opens for filing at 00:00 Amsterdam after the delivery window, and states that date', async () => {
    const { shipment, order, product, image } = await shippedOrder(t, { quantities: [2, 1] });
    t.clock.set(at(OPENS, -DAY));
    expectError(await packageMissing(t, shipment), 409, 'shipment_too_recent', '2026-06-04');
    t.clock.set(at(OPENS, -1));
    expectError(await packageMissing(t, shipment), 409, 'shipment_too_recent', '2026-06-04');
    t.clock.set(OPENS);
    const ev = await uploadEvidence(t);
    const res = await packageMissing(t, shipment, [ev]);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.data.claim.reference, /^Claim_[0-9a-hjkmnp-tv-z]{26}$/);

    const claim = await getClaim(t, res.data.claim.reference);
    assert.equal(claim.status, 'pending');
    assert.equal(claim.orderReference, order);
    assert.equal(claim.shipmentReference, shipment);
    assert.equal(claim.createdBy, 'demo (full access)');
    assert.equal(claim.comment, '');
    assert.equal(claim.decision, null);
    assert.equal(claim.retracted, null);
    assert.equal(claim.created, OPENS);
    assert.equal(claim.evidenceUrls.length, 1);
    assert.match(claim.evidenceUrls[0], /\/evidence-files\/[0-9a-hjkmnp-tv-z]{32}\.png$/);
    assert.deepEqual(
      claim.claimlines.map((l: any) => [
        l.orderlineIndex,
        l.quantity,
        l.productReference,
        l.imageReference,
        l.claimcategory.name,
        l.decision,
        l.evidenceUrls.length,
      ]),
      [
        [1, 2, product, image, 'Package missing', null, 0],
        [2, 1, product, image, 'Package missing', null, 0],
      ],
    );

    expectError(await packageMissing(t, shipment), 409, 'shipment_already_claimed');
  });

  it('uses the destination and level: tracked to the US waits ten business days', async () => {
    const us = {
      ...ADDRESS,
      streetname: 'Main Street',
      housenumber: '1',
      zipcode: '10001',
      city: 'New York',
      state: 'NY',
      countryCode: 'US',
    };
    // Friday 2026-06-05; the ten-business-day window ends Friday 2026-06-19, filing opens Saturday.
    const { shipment } = await shippedOrder(t, { shippedAt: '2026-06-05T09:00:00.000Z', address: us });
    t.clock.set('2026-06-19T21:59:59.000Z');
    expectError(await packageMissing(t, shipment), 409, 'shipment_too_recent', 'from 2026-06-20');
    t.clock.set('2026-06-19T22:00:00.000Z');
    assert.equal((await packageMissing(t, shipment)).statusCode, 200);
  });

  it('ends with the 100-day warranty', async () => {
    const { shipment } = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 100 * DAY));
    expectError(await packageMissing(t, shipment), 409, 'warranty_expired');
    t.clock.set(at(SHIPPED, 101 * DAY));
    expectError(await packageMissing(t, shipment), 409, 'warranty_expired');
    t.clock.set(at(SHIPPED, 100 * DAY - 1));
    assert.equal((await packageMissing(t, shipment)).statusCode, 200);
  });

  it('takes 0 to 3 evidence references of the organization, each used once', async () => {
    const a = await shippedOrder(t);
    const b = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 10 * DAY));
    const evs = [await uploadEvidence(t), await uploadEvidence(t), await uploadEvidence(t), await uploadEvidence(t)];
    expectError(await packageMissing(t, a.shipment, evs), 400, 'too_many_evidence_references');
    expectError(
      await packageMissing(t, a.shipment, ['Evidence_0123456789abcdefghjkmnpqrs']),
      400,
      'evidence_not_found',
    );
    expectError(await packageMissing(t, a.shipment, ['not-a-reference']), 400, 'evidence_not_found');
    const foreign = await uploadEvidence(t, t.otherKey);
    expectError(await packageMissing(t, a.shipment, [foreign]), 400, 'evidence_not_found');
    expectError(await packageMissing(t, a.shipment, [evs[0], evs[0]]), 400, 'evidence_already_used');
    assert.equal((await packageMissing(t, a.shipment, evs.slice(0, 3))).statusCode, 200);
    expectError(await packageMissing(t, b.shipment, [evs[0]]), 400, 'evidence_already_used');
    const res = await packageMissing(t, b.shipment, []);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual((await getClaim(t, res.data.claim.reference)).evidenceUrls, []);
  });

  it('keeps other organizations out and rejects bad bodies', async () => {
    const { shipment } = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 10 * DAY));
    expectError(await packageMissing(t, shipment, undefined, t.otherKey), 404, 'not_found');
    expectError(await packageMissing(t, 'Shipment_0123456789abcdefghjkmnpqrs'), 404, 'not_found');
    expectError(await packageMissing(t, shipment, undefined, t.readOnlyKey), 403, 'insufficient_permissions');
    expectError(
      await call(t, 'POST', '/v2/claim-package-missing', {
        body: { claim: { shipmentReference: shipment, orderReference: 'x' } },
      }),
      400,
      'invalid_request',
      'orderReference',
    );
    expectError(
      await call(t, 'POST', '/v2/claim-package-missing', { body: { shipmentReference: shipment } }),
      400,
      'invalid_request',
    );
    // the evidence upload's octet-stream parser does not leak to the JSON endpoints
    expectError(
      await call(t, 'POST', '/v2/claim-package-missing', {
        payload: Buffer.from('{}'),
        headers: { 'content-type': 'application/octet-stream' },
      }),
      415,
      'unsupported_media_type',
    );
  });
});

describe('item-issues claims', () => {
  let t: TestApp;
  let cat: Record<string, string>;
  before(async () => {
    t = await createTestApp();
    cat = await categories(t);
  });
  after(() => t.close());

  const line = (orderlineIndex: number, quantity: number, category: string, evidenceReferences?: string[]) => ({
    orderlineIndex,
    quantity,
    claimcategoryReference: category,
    ...(evidenceReferences ? { evidenceReferences } : {}),
  });

  it('claims items with evidence and shows them in the detail', async () => {
    const { shipment, order, product, image } = await shippedOrder(t, { quantities: [3, 1] });
    t.clock.set(at(SHIPPED, DAY)); // no delivery window for item issues
    const ev = await uploadEvidence(t);
    const res = await itemIssues(t, {
      shipmentReference: shipment,
      orderReference: order,
      comment: 'Cracked on arrival',
      claimlines: [line(1, 2, cat['Damaged item'], [ev]), line(2, 1, cat['Wrong item'])],
    });
    assert.equal(res.statusCode, 200, res.body);
    const claim = await getClaim(t, res.data.claim.reference);
    assert.equal(claim.comment, 'Cracked on arrival');
    assert.deepEqual(claim.evidenceUrls, [], 'claim-level URLs only for package-missing claims');
    assert.deepEqual(
      claim.claimlines.map((l: any) => [
        l.orderlineIndex,
        l.quantity,
        l.productReference,
        l.imageReference,
        l.claimcategory.reference,
        l.evidenceUrls.length,
      ]),
      [
        [1, 2, product, image, cat['Damaged item'], 1],
        [2, 1, product, image, cat['Wrong item'], 0],
      ],
    );
    const file = await call(t, 'GET', new URL(claim.claimlines[0].evidenceUrls[0]).pathname, { key: null });
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'image/png');
  });

  it('counts open claims against the shipped quantity', async () => {
    const { shipment, order } = await shippedOrder(t, { quantities: [3] });
    t.clock.set(at(SHIPPED, 5 * DAY));
    const body = (q: number) => ({
      shipmentReference: shipment,
      orderReference: order,
      claimlines: [line(1, q, cat['Wrong item'])],
    });
    expectError(await itemIssues(t, body(4)), 400, 'claimed_quantity_exceeds_shipped');
    const first = await itemIssues(t, body(2));
    assert.equal(first.statusCode, 200, first.body);
    expectError(await itemIssues(t, body(2)), 400, 'claimed_quantity_exceeds_shipped', 'open claims');
    assert.equal((await itemIssues(t, body(1))).statusCode, 200);
    // a retracted claim no longer holds its quantity
    assert.equal((await call(t, 'POST', `/v2/claims/${first.data.claim.reference}/retract`)).statusCode, 204);
    assert.equal((await itemIssues(t, body(2))).statusCode, 200);
  });

  it('names every broken rule', async () => {
    const { shipment, order } = await shippedOrder(t, { quantities: [2] });
    const other = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 5 * DAY));
    const base = { shipmentReference: shipment, orderReference: order };
    const evs = [await uploadEvidence(t), await uploadEvidence(t), await uploadEvidence(t), await uploadEvidence(t)];
    expectError(
      await itemIssues(t, { ...base, orderReference: other.order, claimlines: [line(1, 1, cat['Wrong item'])] }),
      400,
      'order_not_in_shipment',
    );
    expectError(
      await itemIssues(t, {
        ...base,
        orderReference: 'Order_0123456789abcdefghjkmnpqrs',
        claimlines: [line(1, 1, cat['Wrong item'])],
      }),
      400,
      'order_not_in_shipment',
    );
    expectError(
      await itemIssues(t, { ...base, claimlines: [line(2, 1, cat['Wrong item'])] }),
      400,
      'orderline_not_in_shipment',
    );
    expectError(
      await itemIssues(t, { ...base, claimlines: [line(1, 1, cat['Print defect'])] }),
      400,
      'evidence_required',
    );
    expectError(
      await itemIssues(t, { ...base, claimlines: [line(1, 1, cat['Print defect'], [])] }),
      400,
      'evidence_required',
    );
    expectError(
      await itemIssues(t, { ...base, claimlines: [line(1, 1, cat['Package missing'])] }),
      400,
      'package_missing_category_not_allowed',
    );
    expectError(
      await itemIssues(t, { ...base, claimlines: [line(1, 1, cat['Print defect'], evs)] }),
      400,
      'too_many_evidence_references',
    );
    expectError(
      await itemIssues(t, {
        ...base,
        claimlines: [line(1, 1, cat['Print defect'], ['Evidence_0123456789abcdefghjkmnpqrs'])],
      }),
      400,
      'evidence_not_found',
    );
    expectError(
      await itemIssues(t, { ...base, claimlines: [line(1, 1, 'Claimcategory_0123456789abcdefghjkmnpqrs')] }),
      400,
      'invalid_request',
      'claimcategoryReference',
    );
    expectError(
      await itemIssues(t, { ...base, claimlines: [line(1, 1, cat['Wrong item']), line(1, 1, cat['Wrong item'])] }),
      400,
      'invalid_request',
      'twice',
    );
    expectError(await itemIssues(t, { ...base, claimlines: [] }), 400, 'invalid_request');
    expectError(await itemIssues(t, { ...base, claimlines: [line(1, 0, cat['Wrong item'])] }), 400, 'invalid_request');
    expectError(
      await itemIssues(t, { ...base, comment: 'x'.repeat(1001), claimlines: [line(1, 1, cat['Wrong item'])] }),
      400,
      'invalid_request',
      'comment',
    );
    expectError(
      await itemIssues(t, { ...base, claimlines: [{ ...line(1, 1, cat['Wrong item']), color: 'red' }] }),
      400,
      'invalid_request',
      'color',
    );
    expectError(
      await itemIssues(t, { ...base, shipmentReference: other.shipment, claimlines: [line(1, 1, cat['Wrong item'])] }),
      400,
      'order_not_in_shipment',
    );
    // nothing was created by the failures, and the evidence is still free
    const ok = await itemIssues(t, {
      ...base,
      comment: 'x'.repeat(1000),
      claimlines: [line(1, 2, cat['Print defect'], evs.slice(0, 3))],
    });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('ends with the 100-day warranty', async () => {
    const { shipment, order } = await shippedOrder(t);
    const body = { shipmentReference: shipment, orderReference: order, claimlines: [line(1, 1, cat['Wrong item'])] };
    t.clock.set(at(SHIPPED, 101 * DAY));
    expectError(await itemIssues(t, body), 409, 'warranty_expired');
    t.clock.set(at(SHIPPED, 100 * DAY));
    expectError(await itemIssues(t, body), 409, 'warranty_expired');
    t.clock.set(at(SHIPPED, 100 * DAY - 1000));
    assert.equal((await itemIssues(t, body)).statusCode, 200);
  });

  it('keeps other organizations out', async () => {
    const { shipment, order } = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 5 * DAY));
    const body = { shipmentReference: shipment, orderReference: order, claimlines: [line(1, 1, cat['Wrong item'])] };
    expectError(await itemIssues(t, body, t.otherKey), 404, 'not_found');
    expectError(await itemIssues(t, body, t.readOnlyKey), 403, 'insufficient_permissions');
  });
});

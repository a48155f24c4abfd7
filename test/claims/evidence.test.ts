import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { bombPng, gif, jpeg, png } from '../images/fixtures.ts';
import {
  DAY,
  SHIPPED,
  at,
  categories,
  decide,
  decision,
  expectError,
  getClaim,
  itemIssues,
  packageMissing,
  shippedOrder,
  uploadEvidence,
} from './helpers.ts';

const upload = (t: TestApp, payload: Buffer | string, opts: { key?: string; type?: string } = {}) =>
  call(t, 'POST', '/v2/evidence', {
    key: opts.key,
    payload,
    headers: { 'content-type': opts.type ?? 'application/octet-stream' },
  });

const fetchFile = (t: TestApp, url: string) => call(t, 'GET', new URL(url).pathname, { key: null });

describe('evidence uploads and files', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('accepts JPEG and PNG bytes from the uploads bucket, a new reference each time', async () => {
    const bytes = await jpeg(50, 40);
    const a = await upload(t, bytes);
    assert.equal(a.statusCode, 200, a.body);
    assert.match(a.data.evidence.reference, /^Evidence_[0-9a-hjkmnp-tv-z]{26}$/);
    assert.equal(a.data.evidence.format, 'jpeg');
    assert.match(String(a.headers['x-ratelimit']), /"uploads"/);
    const b = await upload(t, bytes);
    assert.notEqual(b.data.evidence.reference, a.data.evidence.reference, 'each evidence serves one claim');
    assert.equal((await upload(t, await png(30, 30))).data.evidence.format, 'png');
  });

  it('refuses what is not a JPEG or PNG like the image upload does', async () => {
    expectError(await upload(t, await gif()), 400, 'invalid_image');
    expectError(await upload(t, await bombPng()), 400, 'invalid_image');
    expectError(await upload(t, Buffer.alloc(0)), 400, 'invalid_image');
    expectError(await upload(t, (await png(100, 100)).subarray(0, 120)), 400, 'invalid_image');
    expectError(await upload(t, await png(), { type: 'image/png' }), 415, 'unsupported_media_type');
    expectError(await call(t, 'POST', '/v2/evidence', { body: { image: 'x' } }), 415, 'unsupported_media_type');
    expectError(await upload(t, await png(), { key: t.readOnlyKey }), 403, 'insufficient_permissions');
    expectError(await upload(t, await png(), { key: 'sk_test_wrong' }), 401, 'unauthorized');
  });

  it('serves files only at their unguessable URL', async () => {
    const { shipment } = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 5 * DAY));
    const bytes = await jpeg(60, 60, 9);
    const ev = (await upload(t, bytes)).data.evidence.reference;
    const claim = (await packageMissing(t, shipment, [ev])).data.claim.reference;
    const [url] = (await getClaim(t, claim)).evidenceUrls;
    assert.ok(url.startsWith(`${t.s.config.publicBaseUrl}/evidence-files/`), url);
    assert.match(url, /\.jpg$/);
    const file = await fetchFile(t, url);
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'image/jpeg');
    assert.deepEqual(file.rawPayload, bytes);
    const path = new URL(url).pathname;
    expectError(await call(t, 'GET', path.replace(/\.jpg$/, '.png'), { key: null }), 404, 'not_found');
    expectError(
      await call(t, 'GET', '/evidence-files/0123456789abcdefghjkmnpqrstvwxyz.jpg', { key: null }),
      404,
      'not_found',
    );
    expectError(await call(t, 'GET', '/evidence-files/..%2F..%2Fetc%2Fpasswd', { key: null }), 404, 'not_found');
  });
});

describe('evidence retention', () => {
  let t: TestApp;
  let cat: Record<string, string>;
  before(async () => {
    t = await createTestApp();
    cat = await categories(t);
  });
  after(() => t.close());

  it('deletes evidence that no claim used within a day', async () => {
    const { shipment } = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 5 * DAY));
    const kept = await uploadEvidence(t);
    const dropped = await uploadEvidence(t);
    const [droppedKey] = (await t.db.query('SELECT blob_key FROM evidence WHERE id = $1', [dropped])).map(
      (r) => r.blob_key,
    );
    assert.ok(await t.s.blobs.get(droppedKey));
    t.clock.advance(DAY - 1000);
    await t.s.worker.drain();
    const res = await packageMissing(t, shipment, [kept]);
    assert.equal(res.statusCode, 200, res.body);
    t.clock.advance(2000);
    await t.s.worker.drain();
    const rows = await t.db.query('SELECT id FROM evidence WHERE id = ANY($1::text[])', [[kept, dropped]]);
    assert.deepEqual(
      rows.map((r) => r.id),
      [kept],
      'the used evidence stays, the unused one is gone',
    );
    assert.equal(await t.s.blobs.get(droppedKey), null);
    const other = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 6 * DAY));
    expectError(await packageMissing(t, other.shipment, [dropped]), 400, 'evidence_not_found');
    assert.equal((await getClaim(t, res.data.claim.reference)).evidenceUrls.length, 1);
  });

  it('refuses evidence older than a day even before the clean-up ran', async () => {
    const { shipment } = await shippedOrder(t);
    t.clock.set(at(SHIPPED, 5 * DAY));
    const ev = await uploadEvidence(t);
    t.clock.advance(DAY);
    expectError(await packageMissing(t, shipment, [ev]), 400, 'evidence_not_found');
  });

  it('purges the evidence of a claim about four months after its decision or retraction', async () => {
    const a = await shippedOrder(t, { quantities: [1] });
    const b = await shippedOrder(t, { quantities: [1] });
    t.clock.set(at(SHIPPED, 5 * DAY));
    const evA = [await uploadEvidence(t), await uploadEvidence(t)];
    const evB = await uploadEvidence(t);
    const claimA = (await packageMissing(t, a.shipment, evA)).data.claim.reference;
    const claimB = (
      await itemIssues(t, {
        shipmentReference: b.shipment,
        orderReference: b.order,
        claimlines: [
          { orderlineIndex: 1, quantity: 1, claimcategoryReference: cat['Print defect'], evidenceReferences: [evB] },
        ],
      })
    ).data.claim.reference;
    const closed = at(SHIPPED, 6 * DAY);
    t.clock.set(closed);
    assert.equal((await call(t, 'POST', `/v2/claims/${claimA}/retract`)).statusCode, 204);
    assert.equal((await decide(t, claimB, decision('resolved', [[1, 0, 1, 0]]))).statusCode, 204);
    const urlsA = (await getClaim(t, claimA)).evidenceUrls;
    const urlB = (await getClaim(t, claimB)).claimlines[0].evidenceUrls[0];
    assert.equal(urlsA.length, 2);

    t.clock.set(at(closed.toISOString(), 120 * DAY - 1000));
    await t.s.worker.drain();
    assert.equal((await fetchFile(t, urlsA[0])).statusCode, 200);
    assert.equal((await fetchFile(t, urlB)).statusCode, 200);
    assert.equal((await getClaim(t, claimA)).evidenceUrls.length, 2);

    t.clock.set(at(closed.toISOString(), 120 * DAY));
    // gone at the deadline, even before the purge job has run
    assert.deepEqual((await getClaim(t, claimA)).evidenceUrls, []);
    expectError(await fetchFile(t, urlB), 404, 'not_found');
    const keys = (await t.db.query('SELECT blob_key FROM evidence WHERE id = ANY($1::text[])', [[...evA, evB]])).map(
      (r) => r.blob_key,
    );
    assert.equal(keys.length, 3);
    await t.s.worker.drain();
    for (const key of keys) assert.equal(await t.s.blobs.get(key), null, 'the file is deleted');
    const afterA = await getClaim(t, claimA);
    const afterB = await getClaim(t, claimB);
    assert.deepEqual(afterA.evidenceUrls, []);
    assert.deepEqual(afterB.claimlines[0].evidenceUrls, []);
    assert.equal(afterB.status, 'resolved', 'the claim itself stays');
    for (const url of [...urlsA, urlB]) expectError(await fetchFile(t, url), 404, 'not_found');
    const rows = await t.db.query('SELECT id FROM evidence WHERE id = ANY($1::text[])', [[...evA, evB]]);
    assert.equal(rows.length, 0);
  });
});

describe('claims in production', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production', UPLOAD_LIMIT_BYTES: '4096' } });
  });
  after(() => t.close());

  it('has no decide test helper; support decides through the operator API', async () => {
    t.clock.set(at(SHIPPED, -DAY));
    const image = (
      await call(t, 'POST', '/v2/images', {
        payload: await png(20, 20, 3),
        headers: { 'content-type': 'application/octet-stream' },
      })
    ).data.image.reference;
    const { ADDRESS, orderBody, products } = await import('../orders/helpers.ts');
    const order = (
      await call(t, 'POST', '/v2/orders', {
        body: orderBody(t, image, {
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference: products(t).clear, imageReference: image, quantity: 1 }],
        }),
      })
    ).data.order.reference;
    assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
    t.clock.set(SHIPPED);
    const shipment = (await operator(t, 'POST', '/shipments', { orderReferences: [order] })).data.shipment.reference;
    t.clock.set(at(SHIPPED, 10 * DAY));
    const claim = (await packageMissing(t, shipment)).data.claim.reference;
    assert.ok(claim);
    expectError(await decide(t, claim, decision('rejected', [[1, 0, 0, 1]])), 404, 'not_found');
    assert.equal(
      (await operator(t, 'POST', `/claims/${claim}/decide`, { decision: decision('rejected', [[1, 0, 0, 1]]) }))
        .statusCode,
      204,
    );
    assert.equal((await getClaim(t, claim)).status, 'rejected');
  });

  it('limits the evidence upload size', async () => {
    const big = await png(400, 400);
    const noisy = Buffer.concat([big, Buffer.alloc(5000, 1)]);
    expectError(await upload(t, noisy), 413, 'payload_too_large');
  });
});

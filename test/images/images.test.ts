import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { jpeg, png, upload } from './fixtures.ts';

describe('images: dedupe, visibility, listing', () => {
  let t: TestApp;
  let orgA: string;
  before(async () => {
    t = await createTestApp();
    orgA = t.seed.organizations[0].reference;
  });
  after(() => t.close());

  it('returns the same reference for identical bytes', async () => {
    const bytes = await png(200, 100, 1);
    const first = await upload(t, bytes);
    t.clock.advance(60_000);
    const second = await upload(t, bytes);
    assert.equal(first.statusCode, 200);
    assert.equal(second.statusCode, 200);
    assert.equal(second.data.image.reference, first.data.image.reference);
    assert.equal(second.data.image.created, first.data.image.created);
  });

  it('gives two concurrent uploads of the same bytes one reference and one row', async () => {
    const bytes = await jpeg(300, 300, 2);
    const results = await Promise.all([upload(t, bytes), upload(t, bytes), upload(t, bytes)]);
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const refs = new Set(results.map((r) => r.data.image.reference));
    assert.equal(refs.size, 1);
    const rows = await t.db.query('SELECT count(*)::int AS n FROM images WHERE organization_id = $1 AND id = $2', [
      orgA,
      [...refs][0],
    ]);
    assert.equal(rows[0].n, 1);
  });

  it('dedupes a downsized image by the uploaded bytes', async () => {
    const bytes = await jpeg(7100, 200, 3);
    const first = await upload(t, bytes);
    const second = await upload(t, bytes);
    assert.equal(first.data.image.width, 7000);
    assert.equal(second.data.image.reference, first.data.image.reference);
  });

  it('gives other bytes another reference', async () => {
    const a = await upload(t, await png(50, 50, 10));
    const b = await upload(t, await png(50, 50, 11));
    assert.notEqual(a.data.image.reference, b.data.image.reference);
  });

  it('keeps organizations apart: same bytes, another reference; the first org’s image is 404', async () => {
    const bytes = await png(80, 60, 20);
    const mine = await upload(t, bytes);
    const theirs = await upload(t, bytes, { key: t.otherKey });
    assert.equal(theirs.statusCode, 200);
    assert.notEqual(theirs.data.image.reference, mine.data.image.reference);

    const foreign = await call(t, 'GET', `/v2/images/${mine.data.image.reference}`, { key: t.otherKey });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.data.code, 'not_found');
    const own = await call(t, 'GET', `/v2/images/${theirs.data.image.reference}`, { key: t.otherKey });
    assert.equal(own.statusCode, 200);
    assert.deepEqual(own.data.image, theirs.data.image);

    const list = await call(t, 'GET', '/v2/images', { key: t.otherKey });
    assert.deepEqual(
      list.data.images.map((i: any) => i.reference),
      [theirs.data.image.reference],
    );

    const orgB = t.seed.organizations[1].reference;
    assert.equal(await t.s.images.imageForOrganization(orgB, mine.data.image.reference), null);
    assert.ok(await t.s.images.imageForOrganization(orgA, mine.data.image.reference));
  });

  it('shows one image by reference', async () => {
    const up = await upload(t, await jpeg(64, 48, 30));
    const res = await call(t, 'GET', `/v2/images/${up.data.image.reference}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.data.image, up.data.image);
  });

  it('treats malformed, wrong-typed and unknown references as 404', async () => {
    const store = t.seed.organizations[0].stores[0].reference;
    for (const ref of [
      'nope',
      store,
      `Image_${'I'.repeat(26)}`,
      `Image_${'a'.repeat(27)}`,
      `Image_${'a'.repeat(26)}`,
      "Image_'; drop table images;--",
    ]) {
      const res = await call(t, 'GET', `/v2/images/${encodeURIComponent(ref)}`);
      assert.equal(res.statusCode, 404, ref);
      assert.equal(res.data.code, 'not_found');
      assert.equal(await t.s.images.imageForOrganization(orgA, ref), null);
    }
  });

  it('hands other modules a handle and the stored bytes', async () => {
    const bytes = await png(33, 22, 40);
    const up = await upload(t, bytes);
    const handle = await t.s.images.imageForOrganization(orgA, up.data.image.reference);
    assert.deepEqual(
      { ...handle, blobKey: undefined },
      { reference: up.data.image.reference, width: 33, height: 22, format: 'png', blobKey: undefined },
    );
    assert.deepEqual(await t.s.images.readImage(handle!.blobKey), bytes);
    assert.equal(await t.s.images.readImage(`images/${orgA}/missing.png`), null);
    // Usable inside another module's transaction (PGlite has one connection).
    const inTx = await t.db.tx((tx) => t.s.images.imageForOrganization(orgA, up.data.image.reference, tx));
    assert.deepEqual(inTx, handle);
    // The dedupe key and the blob name are the SHA-256 of the uploaded bytes.
    const sha = createHash('sha256').update(bytes).digest('hex');
    assert.equal(handle!.blobKey, `images/${orgA}/${sha}.png`);
  });

  it('counts uploads to the default and uploads buckets, lists to default only', async () => {
    const up = await upload(t, await png(20, 20, 50));
    assert.equal(up.statusCode, 200);
    const policy = String(up.headers['x-ratelimit-policy']);
    assert.match(policy, /"default";q=3000;w=60/);
    assert.match(policy, /"uploads";q=5000;w=86400/);
    const state = String(up.headers['x-ratelimit']);
    assert.match(state, /"default";r=\d+;t=\d+/);
    assert.match(state, /"uploads";r=\d+;t=\d+/);
    const refused = await call(t, 'POST', '/v2/images', {
      payload: Buffer.from('x'),
      headers: { 'content-type': 'text/plain' },
    });
    assert.match(String(refused.headers['x-ratelimit-policy']), /"uploads"/);
    const list = await call(t, 'GET', '/v2/images');
    assert.equal(String(list.headers['x-ratelimit-policy']), '"default";q=3000;w=60');
  });

  it('replays an upload under the same Idempotency-Key', async () => {
    const bytes = await png(21, 21, 60);
    const first = await upload(t, bytes, { headers: { 'idempotency-key': 'img-1' } });
    const again = await upload(t, bytes, { headers: { 'idempotency-key': 'img-1' } });
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.data, first.data);
    const other = await upload(t, await png(21, 21, 61), { headers: { 'idempotency-key': 'img-1' } });
    assert.equal(other.statusCode, 409);
    assert.equal(other.data.code, 'idempotency_key_reused');
  });
});

describe('images: pagination', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('lists newest first with opaque cursors; nextCursor only on a full page', async () => {
    const empty = await call(t, 'GET', '/v2/images');
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.data, { images: [], nextCursor: null });

    const refs: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      refs.push((await upload(t, await png(10 + i, 10, 70 + i))).data.image.reference);
    }
    const newestFirst = [...refs].reverse();
    const p1 = await call(t, 'GET', '/v2/images?limit=2');
    assert.deepEqual(
      p1.data.images.map((i: any) => i.reference),
      newestFirst.slice(0, 2),
    );
    assert.ok(p1.data.nextCursor);
    const p2 = await call(t, 'GET', `/v2/images?limit=2&cursor=${encodeURIComponent(p1.data.nextCursor)}`);
    assert.deepEqual(
      p2.data.images.map((i: any) => i.reference),
      newestFirst.slice(2, 4),
    );
    assert.ok(p2.data.nextCursor);
    const p3 = await call(t, 'GET', `/v2/images?limit=2&cursor=${encodeURIComponent(p2.data.nextCursor)}`);
    assert.deepEqual(
      p3.data.images.map((i: any) => i.reference),
      newestFirst.slice(4),
    );
    assert.equal(p3.data.nextCursor, null);

    const all = await call(t, 'GET', '/v2/images');
    assert.equal(all.data.images.length, 5);
    assert.equal(all.data.nextCursor, null);
    const item = all.data.images[0];
    assert.deepEqual(Object.keys(item).sort(), ['created', 'format', 'height', 'reference', 'size', 'width']);
  });

  it('ends with an empty page when the last page was exactly full', async () => {
    const p1 = await call(t, 'GET', '/v2/images?limit=5');
    assert.equal(p1.data.images.length, 5);
    assert.ok(p1.data.nextCursor);
    const p2 = await call(t, 'GET', `/v2/images?limit=5&cursor=${encodeURIComponent(p1.data.nextCursor)}`);
    assert.deepEqual(p2.data, { images: [], nextCursor: null });
  });

  it('refuses a tampered cursor, a bad limit and unknown query fields', async () => {
    const p1 = await call(t, 'GET', '/v2/images?limit=1');
    const bad = await call(t, 'GET', `/v2/images?cursor=${encodeURIComponent(p1.data.nextCursor + 'x')}`);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.data.code, 'invalid_cursor');
    const foreign = await call(t, 'GET', `/v2/images?cursor=${encodeURIComponent(p1.data.nextCursor)}`, {
      key: t.otherKey,
    });
    assert.equal(foreign.statusCode, 200);
    assert.deepEqual(foreign.data.images, []);
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'sort=asc']) {
      const res = await call(t, 'GET', `/v2/images?${q}`);
      assert.equal(res.statusCode, 400, q);
      assert.equal(res.data.code, 'invalid_request');
    }
  });
});

describe('images: uploads bucket exhausted', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { RATE_LIMITS: 'uploads=2/86400' } });
  });
  after(() => t.close());

  it('answers 429 rate_limited once the uploads bucket is empty, while lists still work', async () => {
    assert.equal((await upload(t, await png(10, 10, 1))).statusCode, 200);
    assert.equal((await upload(t, await png(10, 10, 2))).statusCode, 200);
    const res = await upload(t, await png(10, 10, 3));
    assert.equal(res.statusCode, 429);
    assert.equal(res.data.code, 'rate_limited');
    assert.ok(Number(res.headers['retry-after']) >= 1);
    assert.match(String(res.headers['x-ratelimit']), /"uploads";r=0;t=\d+/);
    assert.equal((await call(t, 'GET', '/v2/images')).statusCode, 200);
  });
});

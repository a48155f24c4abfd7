import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RequestLog } from '../../src/modules/requestlog/recorder.ts';
import { PackedWriter, packedId, unpack } from '../../src/modules/requestlog/packed.ts';
import { PendingBatch, type RequestRecord } from '../../src/modules/requestlog/repo.ts';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/db/migrate.ts';
import { PgliteDb } from '../../src/platform/db/pglite.ts';
import { uuidV7, uuidV7Time } from '../../src/platform/ids.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';

const silent = { warn: () => {} } as never;
const rec = (requestId: string, extra: Partial<RequestRecord> = {}): RequestRecord => ({
  requestId,
  organizationId: 'Organization_batches',
  keyId: null,
  method: 'GET',
  path: '/v2/stores',
  status: 200,
  latencyMs: 2,
  errorCode: null,
  requestBody: null,
  responseBody: null,
  at: Date.now(),
  ...extra,
});

describe('request log batches', () => {
  let t: TestApp;
  let log: RequestLog;
  const org = 'Organization_batches';
  before(async () => {
    t = await createTestApp();
    log = new RequestLog({ db: t.s.db, log: silent, batchRows: 40, writeRows: 120, flushMs: 60_000 });
    // 250 requests in batches of 40, three full batches a write, one 404 in the middle, 5 of another
    // organization mixed in.
    for (let i = 0; i < 250; i++) {
      log.record(rec(`b-${i}`, i === 120 ? { status: 404, errorCode: 'not_found', path: '/v2/orders/X' } : {}));
      if (i % 50 === 0) log.record(rec(`other-${i}`, { organizationId: 'Organization_elsewhere' }));
    }
    await log.flush();
  });
  after(() => t.close());

  it('pages through every request of the organization, newest first, none twice', async () => {
    const seen: string[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await log.list(org, { limit: 60, beforeSeq: before });
      seen.push(...page.rows.map((r) => r.request_id));
      if (!page.next) break;
      before = page.next;
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 250 }, (_, i) => `b-${249 - i}`),
    );
  });

  it('filters inside batches, and a rare match across a bounded search says where it stopped', async () => {
    const errors = await log.list(org, { limit: 50, statusClass: 4 });
    assert.deepEqual(
      errors.rows.map((r) => [r.request_id, r.error_code, r.path]),
      [['b-120', 'not_found', '/v2/orders/X']],
    );
    assert.equal(errors.next, null, 'everything was searched');
    // Searching two batches at a time: the first page stops short and says how far it looked.
    const first = await log.list(org, { limit: 50, path: 'ORDERS', scanBatches: 2 });
    assert.deepEqual(first.rows, []);
    assert.ok(first.next && first.searchedTo instanceof Date);
    let page = first;
    const found: string[] = [];
    while (page.next) {
      page = await log.list(org, { limit: 50, path: 'orders', scanBatches: 2, beforeSeq: page.next });
      found.push(...page.rows.map((r) => r.request_id));
    }
    assert.deepEqual(found, ['b-120']);
  });

  it('finds a request by id, in its organization only', async () => {
    const [row] = (await log.list(org, { limit: 5, requestId: 'b-7' })).rows;
    assert.equal(row.request_id, 'b-7');
    assert.equal(await log.get('Organization_elsewhere', row.seq), null);
    assert.equal((await log.get(org, row.seq))?.request_id, 'b-7');
    assert.equal(await log.get(org, '99999999999999'), null);
    assert.deepEqual((await log.list(org, { limit: 5, requestId: 'other-0' })).rows, []);
    const [elsewhere] = await log.byRequestId('other-0');
    assert.equal(elsewhere.organization_id, 'Organization_elsewhere');
  });

  it('stores paths and client request ids with quotes, backslashes and control characters as sent', async () => {
    const odd = 'odd-"\\\u001e\té';
    const path = '/v2/orders/"a\\b"\u001e{c},[d]';
    log.record(rec(odd, { organizationId: 'Organization_odd', path }));
    log.record(rec('odd-plain', { organizationId: 'Organization_odd2' }));
    await log.flush();
    const [row] = (await log.list('Organization_odd', { limit: 5 })).rows;
    assert.deepEqual([row.request_id, row.path], [odd, path]);
    assert.equal((await log.list('Organization_odd2', { limit: 5 })).rows[0].request_id, 'odd-plain');
    assert.equal((await log.byRequestId(odd))[0]?.path, path);
    // A search box may send a NUL, which PostgreSQL refuses in text: it finds nothing.
    assert.deepEqual(await log.byRequestId('a\u0000b'), []);
    assert.deepEqual((await log.list('Organization_odd', { limit: 5, requestId: '\u0000' })).rows, []);
  });

  it('a write of one organization alone stores its requests and its errors like a shared write', async () => {
    const alone = 'Organization_alone';
    log.record(rec('alone-ok', { organizationId: alone }));
    await log.flush();
    log.record(
      rec('alone-404', {
        organizationId: alone,
        status: 404,
        errorCode: 'not_found',
        responseBody: { code: 'not_found' },
      }),
    );
    log.record(rec('alone-ok2', { organizationId: alone }));
    await log.flush();
    const { rows } = await log.list(alone, { limit: 10 });
    assert.deepEqual(
      rows.map((r) => [r.request_id, r.status, r.error_code]),
      [
        ['alone-ok2', 200, null],
        ['alone-404', 404, 'not_found'],
        ['alone-ok', 200, null],
      ],
    );
    assert.deepEqual((await log.get(alone, rows[1].seq))?.response_body, { code: 'not_found' });
    assert.equal((await log.byRequestId('alone-404'))[0]?.organization_id, alone);
  });

  it('keeps the batches uncompressed (migrations 0020, 0021): pglz on every write cost PGlite ~40 % of it', async () => {
    const cols = await t.s.db.query<{ attname: string; attstorage: string }>(
      `SELECT attname, attstorage FROM pg_attribute WHERE attrelid = 'request_log_batches'::regclass
         AND attname IN ('entries', 'packed') ORDER BY attname`,
    );
    assert.deepEqual(
      cols.map((c) => [c.attname, c.attstorage]),
      [
        ['entries', 'e'],
        ['packed', 'e'],
      ],
    );
  });

  it('packs waiting entries as they come, a few dozen bytes each, and unpacks them as recorded', () => {
    const batch = new PendingBatch('Organization_grow');
    const start = 1_764_057_600_000;
    const records = Array.from({ length: 300 }, (_, i) =>
      rec(i % 7 === 0 ? `client-${i}` : uuidV7(start + i), {
        keyId: i % 5 === 0 ? null : `Key_${i % 3}`,
        path: `/v2/orders/${'é😀"\\'.repeat(i % 40)}`,
        status: i % 50 === 0 ? 500 : 200,
        errorCode: i % 50 === 0 ? 'internal' : null,
        latencyMs: i * 1000,
        // Out of order and back in time too: a test clock, or the system clock stepped back.
        at: start + (i % 10 === 3 ? -86_400_000 : i * 37),
      }),
    );
    for (const r of records) batch.add(r);
    assert.deepEqual(
      unpack(batch.bytes()),
      records.map((r) => [r.requestId, r.keyId, r.method, r.path, r.status, r.latencyMs, r.errorCode, r.at]),
    );
    assert.equal(batch.count, 300);
    assert.equal(batch.newest, start + 299 * 37);
    assert.deepEqual(
      batch.errors.map((e) => e.idx),
      [0, 50, 100, 150, 200, 250],
    );
    // The GET of one order, again and again: what repeats the request before costs nothing, and our
    // request id 10 bytes and its time's difference from the request's.
    const same = new PendingBatch('Organization_same');
    const ids = Array.from({ length: 500 }, (_, i) => uuidV7(start + i * 3));
    for (const [i, id] of ids.entries())
      same.add(rec(id, { keyId: 'Key_0123456789', path: '/v2/orders/ORD-1', at: start + i * 3 + 2 }));
    assert.ok(same.bytes().length < 500 * 15, `${same.bytes().length} bytes for 500 requests`);
    assert.deepEqual(
      unpack(same.bytes()).map((e) => [e[0], e[1], e[3], e[7]]),
      ids.map((id, i) => [id, 'Key_0123456789', '/v2/orders/ORD-1', start + i * 3 + 2]),
    );
  });

  it('packs any text and number and gives them back, and finds a request id inside the bytes', () => {
    const texts = [
      '',
      'plain-id_1.2:3@x+y/z',
      'q"uote',
      'back\\slash',
      'tab\t',
      '\u0000\u001e\u007f',
      'é日本',
      '😀',
      '\u2028',
    ];
    const numbers = [0, 200, 404, 12345, 2 ** 31, Number.NaN, Number.POSITIVE_INFINITY, -5, 2.6];
    const w = new PackedWriter();
    const expected: unknown[] = [];
    for (const text of texts)
      for (const [i, n] of numbers.entries()) {
        const r = { requestId: text, keyId: i % 2 ? null : text, method: text || 'GET', path: `/v2/${text}` };
        const e = { ...r, status: n, latencyMs: n, errorCode: i % 3 ? null : text };
        w.add(e, 1_764_057_600_000 + i);
        const whole = Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
        expected.push([e.requestId, e.keyId, e.method, e.path, whole, whole, e.errorCode, 1_764_057_600_000 + i]);
      }
    assert.deepEqual(unpack(w.bytes()), expected);
    // Text the log never gets (HTTP carries no lone surrogates) is kept as U+FFFD, not refused.
    const lone = new PackedWriter();
    lone.add(
      { requestId: 'a\ud800', keyId: null, method: 'GET', path: '/\udc00', status: 200, latencyMs: 1, errorCode: null },
      1,
    );
    assert.deepEqual(unpack(lone.bytes())[0].slice(0, 4), ['a\ufffd', null, 'GET', '/\ufffd']);
    // Our ids are 16 bytes; an uppercase UUID is a client's text and comes back as sent.
    const id = uuidV7();
    const upper = id.toUpperCase();
    const both = new PackedWriter();
    both.add({ requestId: id, keyId: null, method: 'GET', path: '/', status: 200, latencyMs: 1, errorCode: null }, 1);
    const firstEnd = both.bytes().length;
    both.add(
      { requestId: upper, keyId: null, method: 'GET', path: '/', status: 200, latencyMs: 1, errorCode: null },
      2,
    );
    assert.deepEqual(
      unpack(both.bytes()).map((e) => e[0]),
      [id, upper],
    );
    for (const x of [id, upper]) assert.ok(both.bytes().includes(packedId(x)), x);
    // One character off anywhere (a non-hex digit, a dash moved, a character past ASCII) is text too.
    const near = new PackedWriter();
    const nearIds = [...id].flatMap((_, i) =>
      ['g', '-', 'é', '0'].map((c) => id.slice(0, i) + c + id.slice(i + 1)).filter((x) => x !== id),
    );
    for (const x of nearIds) {
      near.add({ requestId: x, keyId: null, method: 'GET', path: '/', status: 200, latencyMs: 1, errorCode: null }, 1);
    }
    const back = unpack(near.bytes()).map((e) => e[0]);
    assert.deepEqual(back, nearIds);
    const textual = nearIds.filter((x) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(x));
    assert.ok(textual.length > 100);
    for (const x of textual) assert.equal(packedId(x).toString('utf8'), x, 'stored as its text');
    assert.ok(!both.bytes().includes(packedId(uuidV7())));
    // A client's version 7 id made at any time, or none (the system clock's 0 and its far end).
    const clients = new PackedWriter();
    const far = [uuidV7(0), uuidV7(2 ** 48 - 1), uuidV7(1), id, '00000000-0000-7000-8000-000000000000'];
    for (const [i, x] of far.entries())
      clients.add(
        { requestId: x, keyId: 'k', method: 'GET', path: '/', status: 201, latencyMs: 0, errorCode: 'e' },
        i ? 1e12 : Number.NaN,
      );
    assert.deepEqual(
      unpack(clients.bytes()).map((e) => [e[0], e[4], e[6], e[7]]),
      far.map((x, i) => [x, 201, 'e', i ? 1e12 : 0]),
    );
    assert.throws(() => unpack(Buffer.from([2, 3, 0])), /unknown request id form 3/);
    assert.throws(() => unpack(Buffer.from([2, 4 | 64 | 32, 0, 0, 0, 0])), /repeats a request before its first/);
    assert.throws(() => unpack(Buffer.from([3, 0])), /unknown format 3/);
    // Cut anywhere inside a request, the batch fails instead of reading past its end.
    for (let cut = 2; cut < both.bytes().length; cut++)
      if (cut !== firstEnd) assert.throws(() => unpack(both.bytes().subarray(0, cut)), /cut short/, `cut at ${cut}`);
  });

  it('reads the batches written in the first packed format as they were recorded', () => {
    // Three requests as format 1 stores them: ids as 16 bytes or text.
    const v1 = Buffer.from(
      '0100019ad5a03c007abc8def0123456789ab0b4b65795f3107474554212f76322f6f72646572732f4f52442d31c8010300f6c1b6a0d7660108636c69656e742d370009504f5354152f76322f6f7264657273a6030c2376616c69646174696f6e5f6661696c65642d00019ad5a03c017abc8def0123456789ac020406c8010100c801',
      'hex',
    );
    assert.deepEqual(unpack(v1), [
      ['019ad5a0-3c00-7abc-8def-0123456789ab', 'Key_1', 'GET', '/v2/orders/ORD-1', 200, 3, null, 1764057600123],
      ['client-7', null, 'POST', '/v2/orders', 422, 12, 'validation_failed', 1764057600100],
      ['019ad5a0-3c01-7abc-8def-0123456789ac', 'Key_1', 'GET', '/v2/orders/ORD-1', 200, 1, null, 1764057600200],
    ]);
    // The search for a request id finds it in either format.
    for (const id of ['019ad5a0-3c00-7abc-8def-0123456789ab', 'client-7']) assert.ok(v1.includes(packedId(id)), id);
    assert.ok(!v1.includes(packedId('019ad5a0-3c00-7abc-8def-0123456789ad')));
    for (const cut of [5, 40, v1.length - 1]) assert.throws(() => unpack(v1.subarray(0, cut)), /cut short/);
  });

  it('stores an error whose body holds a NUL, a lone surrogate or a pair cut in two, and its batch with it', async () => {
    const cut = `${'a'.repeat(499)}\\ud83d\\ude00`;
    const payload = `{"order":{"k\\u0000":"x\\u0000y","lone":"a\\ud800b","cut":"${cut}"}}`;
    const before = await call(t, 'GET', '/v2/stores');
    const bad = await call(t, 'POST', '/v2/orders', { payload, headers: { 'content-type': 'application/json' } });
    assert.equal(bad.statusCode, 400, bad.body);
    const after = await call(t, 'GET', '/v2/stores');
    await t.s.requestLog.flush();
    const ids = [after, bad, before].map((r) => String(r.headers['x-request-id']));
    const orgId = t.seed.organizations[0].reference;
    const page = await t.s.requestLog.list(orgId, { limit: 3 });
    assert.deepEqual(
      page.rows.map((r) => r.request_id),
      ids,
      'the error and the requests around it were all written',
    );
    const body = (page.rows[1].request_body as { order: Record<string, string> }).order;
    assert.equal(body['k\uFFFD'], 'x\uFFFDy');
    assert.equal(body.lone, 'a\uFFFDb');
    assert.ok(body.cut.startsWith(`${'a'.repeat(499)}\uFFFD`), body.cut.slice(495));
  });

  it('makes request ids that carry their time, and finds an old one by that time', async () => {
    const at = Date.now() - 3 * 86400_000;
    const id = uuidV7(at);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(uuidV7Time(id), at);
    assert.equal(uuidV7Time('b-7'), null);
    log.record(rec(id, { at }));
    await log.flush();
    assert.equal((await log.byRequestId(id))[0]?.request_id, id);
    // An error is found through its index even outside its id's time window (a client's own v7 id).
    const early = uuidV7(at - 86400_000);
    log.record(rec(early, { status: 409, errorCode: 'conflict', requestBody: { n: 1 } }));
    log.record(rec(early, { status: 409, errorCode: 'conflict', organizationId: 'Organization_elsewhere' }));
    await log.flush();
    const both = await log.byRequestId(early);
    assert.deepEqual(both.map((r) => [r.organization_id, r.error_code]).sort(), [
      ['Organization_batches', 'conflict'],
      ['Organization_elsewhere', 'conflict'],
    ]);
    assert.deepEqual(both.find((r) => r.organization_id === org)?.request_body, { n: 1 });
    // A request without an X-Request-Id gets one of these, and the operator finds it.
    const res = await call(t, 'GET', '/v2/stores');
    const generated = String(res.headers['x-request-id']);
    assert.ok(Math.abs((uuidV7Time(generated) ?? 0) - Date.now()) < 60_000, generated);
    await t.s.requestLog.flush();
    assert.equal((await t.s.requestLog.byRequestId(generated))[0]?.request_id, generated);
  });
});

describe('request log migration to batches (0018)', () => {
  it('moves every stored request, errors with their bodies, into batches', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
    for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => f < '0018'))
      cpSync(join(MIGRATIONS_DIR, f), join(dir, f));
    const db = await PgliteDb.open({});
    try {
      await migrate(db, dir);
      await db.query(
        `INSERT INTO request_log (request_id, organization_id, key_id, method, path, status, latency_ms, error_code,
           request_body, response_body, created_at)
         SELECT 'old-' || i, CASE WHEN i % 3 = 0 THEN 'Organization_b' ELSE 'Organization_a' END, NULL, 'POST',
           '/v2/orders', CASE WHEN i = 150 THEN 422 ELSE 201 END, i, CASE WHEN i = 150 THEN 'invalid_request' END,
           CASE WHEN i = 150 THEN '{"note":"[redacted]"}'::jsonb END, CASE WHEN i = 150 THEN '{"code":"invalid_request"}'::jsonb END,
           now() - (300 - i) * interval '1 second'
         FROM generate_series(1, 300) i`,
      );
      await migrate(db);
      const log = new RequestLog({ db, log: silent });
      const a: string[] = [];
      let before: string | undefined;
      do {
        const page = await log.list('Organization_a', { limit: 70, beforeSeq: before });
        a.push(...page.rows.map((r) => r.request_id));
        before = page.next ?? undefined;
      } while (before);
      const expected = Array.from({ length: 300 }, (_, i) => 300 - i).filter((i) => i % 3 !== 0);
      assert.deepEqual(
        a,
        expected.map((i) => `old-${i}`),
      );
      const [err] = await log.byRequestId('old-150');
      assert.equal(err.organization_id, 'Organization_b');
      assert.equal(err.status, 422);
      assert.deepEqual(err.response_body, { code: 'invalid_request' });
      assert.equal(err.latency_ms, 150);
      // New batches continue after the moved ones, packed (0021), and pages and searches read both.
      log.record(rec('new-1', { organizationId: 'Organization_a' }));
      await log.flush();
      assert.deepEqual(
        (await log.list('Organization_a', { limit: 2 })).rows.map((r) => r.request_id),
        ['new-1', 'old-299'],
      );
      const [packed] = await db.query<{ entries: string | null; packed: Uint8Array | null }>(
        'SELECT entries, packed FROM request_log_batches ORDER BY id DESC LIMIT 1',
      );
      assert.equal(packed.entries, null);
      assert.ok(packed.packed && packed.packed.length > 0);
      for (const id of ['old-299', 'new-1'])
        assert.deepEqual(
          (await log.list('Organization_a', { requestId: id, limit: 5 })).rows.map((r) => r.request_id),
          [id],
        );
      assert.equal((await log.byRequestId('new-1'))[0]?.organization_id, 'Organization_a');
      await assert.rejects(
        db.query(`INSERT INTO request_log_batches (organization_id, created_at) VALUES ('x', now())`),
        /request_log_batches_one_form/,
      );
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

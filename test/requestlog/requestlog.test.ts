import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { type Agent, OPERATOR_USER, OTHER_PARTNER, signedIn, textOf } from '../dashboard/helpers.ts';
import { unpack } from '../../src/modules/requestlog/packed.ts';
import { RequestLog } from '../../src/modules/requestlog/recorder.ts';
import { redact } from '../../src/modules/requestlog/redact.ts';

describe('request log', () => {
  let t: TestApp;
  let a: Agent;
  before(async () => {
    t = await createTestApp();
    a = await signedIn(t);
  });
  after(() => t.close());

  /** Requests with their own ids, so each test finds exactly its own rows. */
  const req = (id: string, method: 'GET' | 'POST', url: string, opts: { key?: string; body?: unknown } = {}) =>
    call(t, method, url, { ...opts, headers: { 'x-request-id': id } });

  it('records every /v2 request of the organization with status, latency, key and error code', async () => {
    const ok = await req('rl-ok-1', 'GET', '/v2/stores');
    assert.equal(ok.statusCode, 200);
    const missing = await req('rl-404-1', 'GET', '/v2/orders/Order_doesnotexist');
    assert.equal(missing.statusCode, 404);
    const anonymous = await call(t, 'GET', '/v2/stores', { key: null, headers: { 'x-request-id': 'rl-anon' } });
    assert.equal(anonymous.statusCode, 401);
    await t.s.requestLog.flush();
    const org = t.seed.organizations[0].reference;
    const {
      rows: [row],
    } = await t.s.requestLog.list(org, { requestId: 'rl-ok-1', limit: 10 });
    assert.equal(row.method, 'GET');
    assert.equal(row.path, '/v2/stores');
    assert.equal(row.status, 200);
    assert.ok(row.latency_ms >= 0);
    assert.ok(row.key_hint?.startsWith('sk_test_'), 'the key hint, never the key');
    assert.equal(row.error_code, null);
    assert.equal(row.request_body, null, 'bodies are kept for errors only');
    const {
      rows: [err],
    } = await t.s.requestLog.list(org, { requestId: 'rl-404-1', limit: 10 });
    assert.equal(err.status, 404);
    assert.equal(err.error_code, 'not_found');
    assert.equal(
      (await t.s.requestLog.byRequestId('rl-anon')).length,
      0,
      'a request without a valid key belongs to nobody',
    );
  });

  it('shows an error with its body and response, secrets, addresses and e-mails redacted', async () => {
    const body = {
      storeReference: 'Store_unknown',
      dropshipAddress: { firstname: 'Jane', streetname: 'Secret Lane', city: 'Utrecht', countryCode: 'NL' },
      note: 'mail me at jane.doe@example.com',
      password: 'hunter2-hunter2',
      orderlines: [],
    };
    const res = await req('rl-bad-1', 'POST', '/v2/orders', { body });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, res.body);
    await t.s.requestLog.flush();
    const list = await a.get('/dashboard/requests?status=4');
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /rl-bad-1/);
    assert.doesNotMatch(list.body, /rl-ok-1/, 'the status filter leaves 2xx out');
    const seq = /href="\/dashboard\/requests\/(\d+)"><code>rl-bad-1</.exec(list.body)?.[1];
    assert.ok(seq, 'a link to the detail');
    const detail = await a.get(`/dashboard/requests/${seq}`);
    assert.equal(detail.statusCode, 200);
    const text = textOf(detail.body);
    assert.match(text, /POST \/v2\/orders/);
    assert.match(text, /Store_unknown/, 'the body is shown');
    assert.match(text, /invalid_request|not_found/, 'the response is shown');
    for (const secret of ['Jane', 'Secret Lane', 'Utrecht', 'jane.doe@example.com', 'hunter2'])
      assert.ok(!detail.body.includes(secret), `${secret} is redacted`);
    assert.match(text, /NL/, 'the country stays');
  });

  it("keeps each error's response as sent: not found, refused before the handler, and an idempotent replay", async () => {
    const org = t.seed.organizations[0].reference;
    const responseOf = async (id: string) => {
      await t.s.requestLog.flush();
      const [row] = (await t.s.requestLog.list(org, { requestId: id, limit: 1 })).rows;
      return row?.response_body as { code?: string; requestId?: string } | null;
    };
    assert.equal((await req('rl-resp-404', 'GET', '/v2/orders/Order_doesnotexist')).statusCode, 404);
    const notFound = await responseOf('rl-resp-404');
    assert.deepEqual([notFound?.code, notFound?.requestId], ['not_found', 'rl-resp-404']);
    assert.equal((await req('rl-resp-route', 'GET', '/v2/no-such-thing')).statusCode, 404);
    assert.equal((await responseOf('rl-resp-route'))?.code, 'not_found');
    const bad = await call(t, 'POST', '/v2/orders', {
      body: '{"order":',
      headers: { 'x-request-id': 'rl-resp-json', 'content-type': 'application/json' },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal((await responseOf('rl-resp-json'))?.code, 'invalid_request');
    // Refused by the handler (validation comes before the key is taken): stored, then replayed.
    const cancel = '/v2/orders/Order_doesnotexist/cancel';
    const once = { orderlines: [{ index: 1, canceledQuantity: 1 }] };
    const headers = (id: string) => ({ 'x-request-id': id, 'idempotency-key': 'rl-replay-key' });
    const first = await call(t, 'POST', cancel, { body: once, headers: headers('rl-resp-first') });
    assert.equal(first.statusCode, 404, first.body);
    const again = await call(t, 'POST', cancel, { body: once, headers: headers('rl-resp-replay') });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.statusCode, first.statusCode);
    const replayed = await responseOf('rl-resp-replay');
    assert.equal(replayed?.code, JSON.parse(first.body).code, 'the replayed error is kept like the first');
    assert.equal(replayed?.requestId, 'rl-resp-first', 'as sent: the stored answer names the first request');
  });

  it('filters by path, key and request id; any search text is fine', async () => {
    await req('rl-path-1', 'GET', '/v2/brands');
    await t.s.requestLog.flush();
    const byPath = await a.get('/dashboard/requests?path=brands');
    assert.match(byPath.body, /rl-path-1/);
    assert.doesNotMatch(byPath.body, /rl-ok-1/);
    const byId = await a.get('/dashboard/requests?requestId=rl-path-1');
    assert.match(byId.body, /rl-path-1/);
    assert.doesNotMatch(byId.body, /rl-bad-1/);
    await req('rl-ro-1', 'GET', '/v2/stores', { key: t.readOnlyKey });
    await t.s.requestLog.flush();
    const [ro] = await t.s.requestLog.byRequestId('rl-ro-1');
    const byKey = await a.get(`/dashboard/requests?key=${ro.key_id}`);
    assert.match(byKey.body, /rl-ro-1/);
    assert.doesNotMatch(byKey.body, /rl-path-1/, 'requests with other keys are left out');
    for (const q of [
      'path=%25%27%22%3Cscript%3E',
      'requestId=%01%E2%9C%93',
      'status=9&key=nope&before=abc',
      'path=_',
    ]) {
      const res = await a.get(`/dashboard/requests?${q}`);
      assert.equal(res.statusCode, 200, q);
      assert.doesNotMatch(res.body, /<script>/);
    }
    assert.match(textOf((await a.get('/dashboard/requests?requestId=unknown-id')).body), /No request matches/);
    assert.equal((await a.get('/dashboard/requests/99999999999')).statusCode, 404);
    assert.equal((await a.get('/dashboard/requests/not-a-number')).statusCode, 404);
  });

  it("never shows another organization's request to a partner", async () => {
    await req('rl-other-1', 'GET', '/v2/stores', { key: t.otherKey });
    await t.s.requestLog.flush();
    const mine = await a.get('/dashboard/requests?requestId=rl-other-1');
    assert.doesNotMatch(mine.body, /href="\/dashboard\/requests\/\d+"/, 'no row at all');
    const [row] = await t.s.requestLog.byRequestId('rl-other-1');
    assert.equal(row.organization_id, t.seed.organizations[1].reference);
    assert.equal((await a.get(`/dashboard/requests/${row.seq}`)).statusCode, 404);
    const other = await signedIn(t, OTHER_PARTNER);
    assert.equal((await other.get(`/dashboard/requests/${row.seq}`)).statusCode, 200);
    const list = await other.get('/dashboard/requests');
    assert.match(list.body, /rl-other-1/);
    assert.doesNotMatch(list.body, /rl-ok-1|rl-bad-1/);
  });

  it('lets an operator find a request by id with its organization and error; partners may not', async () => {
    const op = await signedIn(t, OPERATOR_USER, 'console');
    const found = await op.get('/console/requests?requestId=rl-404-1');
    assert.equal(found.statusCode, 200);
    assert.match(textOf(found.body), /not_found/);
    assert.match(found.body, new RegExp(`/console/organizations/${t.seed.organizations[0].reference}`));
    assert.match(textOf((await op.get('/console/requests?requestId=nothing-like-it')).body), /No request with this id/);
    assert.equal((await op.get('/console/requests')).statusCode, 200);
    assert.equal((await a.get('/console/requests?requestId=rl-404-1')).statusCode, 403);
  });

  it('is paused and resumed by an operator: paused, nothing is recorded and what waited is stored', async () => {
    const state = await operator(t, 'GET', '/request-log');
    assert.equal(state.statusCode, 200);
    assert.equal(state.data.recording, true);
    await req('rl-before-pause', 'GET', '/v2/stores');
    const paused = await operator(t, 'PUT', '/request-log', { recording: false });
    assert.equal(paused.statusCode, 200);
    assert.deepEqual(paused.data, { recording: false, buffered: 0, dropped: 0 }, 'pausing stores what waited');
    assert.equal((await t.s.requestLog.byRequestId('rl-before-pause')).length, 1);
    assert.equal((await req('rl-while-paused', 'GET', '/v2/stores')).statusCode, 200, 'the API answers as before');
    assert.equal((await operator(t, 'GET', '/request-log')).data.buffered, 0);
    const resumed = await operator(t, 'PUT', '/request-log', { recording: true });
    assert.equal(resumed.data.recording, true);
    await req('rl-after-resume', 'GET', '/v2/stores');
    await t.s.requestLog.flush();
    assert.equal((await t.s.requestLog.byRequestId('rl-while-paused')).length, 0);
    assert.equal((await t.s.requestLog.byRequestId('rl-after-resume')).length, 1);

    for (const body of [{}, { recording: 'false' }, { recording: false, extra: 1 }, null]) {
      const bad = await operator(t, 'PUT', '/request-log', body);
      assert.equal(bad.statusCode, 400, JSON.stringify(body));
      assert.equal(bad.data.code, 'invalid_request');
    }
    const partner = await call(t, 'PUT', '/operator/request-log', { body: { recording: false } });
    assert.equal(partner.statusCode, 401, 'an API key is no operator token');
    assert.equal((await operator(t, 'GET', '/request-log')).data.recording, true);
  });

  it('is deleted after the retention by the maintenance purge', async () => {
    const org = t.seed.organizations[0].reference;
    const old = new Date(Date.now() - 15 * 86400_000);
    t.s.requestLog.record({
      requestId: 'rl-old',
      organizationId: org,
      keyId: null,
      method: 'GET',
      path: '/v2/stores',
      status: 200,
      latencyMs: 1,
      errorCode: null,
      requestBody: null,
      responseBody: null,
      at: old.getTime(),
    });
    await t.s.requestLog.flush();
    assert.equal((await t.s.requestLog.byRequestId('rl-old')).length, 1);
    assert.equal(t.s.config.requestLogRetentionDays, 14);
    await t.s.requestLog.purgeBefore(new Date(Date.now() - 14 * 86400_000));
    assert.equal((await t.s.requestLog.byRequestId('rl-old')).length, 0);
    assert.equal((await t.s.requestLog.byRequestId('rl-ok-1')).length, 1, 'recent requests stay');
  });
});

describe('request log recorder', () => {
  const record = (i: number) => ({
    requestId: `r${i}`,
    organizationId: 'Organization_x',
    keyId: null,
    method: 'GET',
    path: '/v2/x',
    status: 200,
    latencyMs: 1,
    errorCode: null,
    requestBody: null,
    responseBody: null,
    at: Date.now(),
  });
  const silent = { warn: () => {} } as never;

  it('writes one batch row per organization in one INSERT, with two statement texts for any size', async () => {
    const statements: Array<{ sql: string; params: unknown[] }> = [];
    const db = {
      query: async (sql: string, params: unknown[]) => {
        statements.push({ sql, params });
        return [];
      },
    };
    const log = new RequestLog({ db: db as never, log: silent, writeRows: 3, flushMs: 60_000 });
    for (let i = 0; i < 4; i++) log.record(record(i));
    log.record({ ...record(4), organizationId: 'Organization_y' });
    await log.flush();
    log.record({ ...record(5), organizationId: 'Organization_y' });
    await log.flush();
    assert.equal(statements.length, 3);
    for (const s of statements) assert.match(s.sql, /synchronous_commit/, 'the log never waits for a disk flush');
    // One organization alone: plain parameters, the same text every time (one prepared statement).
    assert.equal(statements[0].sql, statements[2].sql);
    assert.doesNotMatch(statements[0].sql, /unnest/);
    assert.equal(statements[0].params[0], 'Organization_x');
    assert.deepEqual(
      unpack(statements[0].params[2] as Buffer).map((e) => e[0]),
      ['r0', 'r1', 'r2'],
    );
    assert.equal(statements[2].params[0], 'Organization_y');
    // Several organizations: one row each, cut in SQL from one bytea at 1-based offsets.
    assert.match(statements[1].sql, /unnest/);
    assert.deepEqual(statements[1].params[0], ['Organization_x', 'Organization_y']);
    const [all, starts, lengths] = statements[1].params.slice(2) as [Buffer, number[], number[]];
    assert.deepEqual(
      starts.map((s, i) => unpack(all.subarray(s - 1, s - 1 + lengths[i])).map((e) => e[0])),
      [['r3'], ['r4']],
      'one packed batch per organization, cut in SQL',
    );
    assert.equal(
      lengths.reduce((n, l) => n + l, 0),
      all.length,
    );
  });

  it('writes an error with its bodies in the same transaction as its batch', async () => {
    const statements: Array<{ sql: string; params: unknown[] }> = [];
    const ex = {
      query: async (sql: string, params: unknown[] = []) => {
        statements.push({ sql, params });
        return sql.includes('RETURNING') ? [{ id: '7', organization_id: 'Organization_x' }] : [];
      },
    };
    const db = { ...ex, tx: (fn: (e: typeof ex) => Promise<unknown>) => fn(ex) };
    const log = new RequestLog({ db: db as never, log: silent, flushMs: 60_000 });
    log.record(record(0));
    log.record({ ...record(1), status: 422, requestBody: { a: 1 }, responseBody: { code: 'x' } });
    await log.flush();
    assert.equal(statements.length, 3);
    assert.match(statements[0].sql, /SET LOCAL synchronous_commit = off/);
    assert.match(statements[2].sql, /INSERT INTO request_log_errors/);
    assert.deepEqual(statements[2].params[0], ['7001'], 'batch 7, second request');
    assert.deepEqual(statements[2].params[3], ['{"a":1}']);
  });

  it('writes the full batches of a busy organization together, each error under its own batch', async () => {
    const statements: Array<{ sql: string; params: unknown[] }> = [];
    const ex = {
      query: async (sql: string, params: unknown[] = []) => {
        statements.push({ sql, params });
        // Ids come back in any order: x's batches got 11 and 13, y's 12.
        return sql.includes('RETURNING')
          ? [
              { id: '13', organization_id: 'Organization_x' },
              { id: '12', organization_id: 'Organization_y' },
              { id: '11', organization_id: 'Organization_x' },
            ]
          : [];
      },
    };
    const db = { ...ex, tx: (fn: (e: typeof ex) => Promise<unknown>) => fn(ex) };
    const log = new RequestLog({ db: db as never, log: silent, batchRows: 2, writeRows: 5, flushMs: 60_000 });
    const failed = (i: number) => ({ ...record(i), status: 500, responseBody: { code: `e${i}` } });
    log.record(record(0));
    log.record(failed(1));
    log.record({ ...record(2), organizationId: 'Organization_y' });
    log.record(failed(3));
    assert.equal(statements.length, 0, 'four rows wait for the fifth');
    log.record(record(4));
    await log.flush();
    const insert = statements.find((x) => x.sql.includes('INSERT INTO request_log_batches'))!;
    assert.deepEqual(insert.params[0], ['Organization_x', 'Organization_x', 'Organization_y']);
    const [all, starts, lengths] = insert.params.slice(2) as [Buffer, number[], number[]];
    assert.deepEqual(
      starts.map((st, i) => unpack(all.subarray(st - 1, st - 1 + lengths[i])).map((e) => e[0])),
      [['r0', 'r1'], ['r3', 'r4'], ['r2']],
      "x's first batch is full at two; its second goes in the same write",
    );
    const errors = statements.find((x) => x.sql.includes('INSERT INTO request_log_errors'))!;
    assert.deepEqual(errors.params[0], ['11001', '13000'], 'r1 is the second of batch 11, r3 the first of 13');
    assert.deepEqual(errors.params[4], ['{"code":"e1"}', '{"code":"e3"}']);
  });

  it('never throws when the database fails, and drops rows beyond its buffer', async () => {
    const db = { query: async () => Promise.reject(new Error('down')) };
    const log = new RequestLog({ db: db as never, log: silent, writeRows: 100, flushMs: 60_000, maxBuffered: 2 });
    for (let i = 0; i < 3; i++) log.record(record(i));
    assert.deepEqual(log.state(), { recording: true, buffered: 2, dropped: 1 });
    assert.deepEqual(
      await log.setRecording(false),
      { recording: false, buffered: 0, dropped: 3 },
      'paused, the write was tried',
    );
    assert.equal(log.dropped, 3, 'one over the buffer, two in the failed write');
  });

  it('bounds what waits behind a slow database: rows past maxBuffered, written or not, are dropped', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const written: string[] = [];
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        await gate;
        written.push(...unpack(params[2] as Buffer).map((e) => e[0]));
        return [];
      },
    };
    const log = new RequestLog({ db: db as never, log: silent, writeRows: 2, flushMs: 60_000, maxBuffered: 5 });
    for (let i = 0; i < 10; i++) log.record(record(i));
    assert.equal(log.dropped, 5, 'two writes of two wait, one row is pending, the rest is dropped');
    open();
    await log.flush();
    assert.deepEqual(written, ['r0', 'r1', 'r2', 'r3', 'r4']);
    log.record(record(10));
    await log.flush();
    assert.equal(written.at(-1), 'r10', 'room again once the writes are done');
  });

  it('queues records and packs them a few dozen at a time, in order, the quiet ones by the timer', async () => {
    const writes: string[][] = [];
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        const one = !Array.isArray(params[0]);
        const all = params[2] as Buffer;
        const parts = one
          ? [all]
          : (params[3] as number[]).map((st, i) => all.subarray(st - 1, st - 1 + (params[4] as number[])[i]));
        writes.push(parts.flatMap((b) => unpack(b).map((e) => e[0])));
        return [];
      },
    };
    const log = new RequestLog({ db: db as never, log: silent, flushMs: 30 });
    const orgOf = (i: number) => (i % 3 === 0 ? 'Organization_b' : 'Organization_a');
    for (let i = 0; i < 150; i++) log.record({ ...record(i), organizationId: orgOf(i) });
    assert.deepEqual(log.state(), { recording: true, buffered: 150, dropped: 0 }, 'queued and packed alike');
    assert.equal(writes.length, 0, 'nothing written before the timer');
    for (let waited = 0; log.state().buffered > 0 && waited < 100; waited++)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(writes.length, 1, 'one write when the timer fires');
    const ids = Array.from({ length: 150 }, (_, i) => `r${i}`);
    assert.deepEqual([...writes[0]].sort(), [...ids].sort(), 'the queued ones (150 is not a multiple of 64) too');
    const inOrder = (org: string) => writes[0].filter((id) => orgOf(Number(id.slice(1))) === org);
    for (const org of ['Organization_a', 'Organization_b'])
      assert.deepEqual(
        inOrder(org),
        ids.filter((id) => orgOf(Number(id.slice(1))) === org),
        org,
      );
    // A lone request on a quiet node is written by the timer too.
    log.record(record(150));
    for (let waited = 0; writes.length < 2 && waited < 100; waited++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(writes[1], ['r150']);
  });

  it('redacts secrets, addresses and e-mails in nested bodies', () => {
    const out = redact({
      secret: 'x',
      apiKey: 'y',
      url: 'https://a.example/?k=sk_test_abcdef',
      items: [{ email: 'a@b.example', message: 'write to c@d.example' }],
      combinedAddress: { lastname: 'Doe', countryCode: 'DE', housenumber: 3 },
    }) as any;
    assert.equal(out.secret, '[redacted]');
    assert.equal(out.apiKey, '[redacted]');
    assert.doesNotMatch(out.url, /sk_test_abcdef/);
    assert.equal(out.items[0].email, '[redacted]');
    assert.equal(out.items[0].message, 'write to [redacted e-mail]');
    assert.deepEqual(out.combinedAddress, { lastname: '[redacted]', countryCode: 'DE', housenumber: '[redacted]' });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { type Agent, OPERATOR_USER, OTHER_PARTNER, signedIn, textOf } from '../dashboard/helpers.ts';

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

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { OPERATOR_TOKEN, type TestApp, call, createTestApp } from '../support/app.ts';

/** The request-handling conventions every route shares, exercised through the operator API's bodies. */
describe('http conventions', () => {
  let t: TestApp;
  let org: string;
  let account: string;
  before(async () => {
    t = await createTestApp();
    org = t.seed.organizations[0].reference;
    account = t.seed.organizations[0].accounts[0].reference;
  });
  after(() => t.close());

  const op = (method: 'POST' | 'GET' | 'PATCH', url: string, payload?: string, contentType = 'application/json') =>
    call(t, method, `/operator${url}`, {
      key: null,
      payload,
      headers: {
        authorization: `Bearer ${OPERATOR_TOKEN}`,
        ...(payload !== undefined ? { 'content-type': contentType } : {}),
      },
    });

  const storeBody = (extra: Record<string, unknown> = {}) => ({
    name: 'S',
    code: `C${Math.floor(Math.random() * 1e6)}`,
    integration: 'api',
    accountReference: account,
    ...extra,
  });

  it('answers invalid JSON with 400 invalid_request', async () => {
    const res = await op('POST', `/organizations/${org}/stores`, '{"name": ');
    assert.equal(res.statusCode, 400);
    assert.equal(res.data.code, 'invalid_request');
    assert.match(res.data.message, /JSON/);
  });

  it('answers a JSON array instead of an object with 400 naming the body', async () => {
    const res = await op('POST', `/organizations/${org}/stores`, '[]');
    assert.equal(res.statusCode, 400);
    assert.match(res.data.message, /^body must be of type object/);
  });

  it('rejects an undocumented field at every depth, naming it', async () => {
    const top = await op('POST', `/organizations/${org}/stores`, JSON.stringify(storeBody({ color: 'red' })));
    assert.equal(top.statusCode, 400);
    assert.equal(top.data.code, 'invalid_request');
    assert.equal(top.data.message, 'body.color is not a documented field');
    const nested = await op(
      'POST',
      `/organizations/${org}/stores`,
      JSON.stringify(storeBody({ combinedAddress: { lastname: 'x', planet: 'Mars' } })),
    );
    assert.equal(nested.statusCode, 400);
    // The address lacks required fields too: the message leads with the first problem, details hold all.
    assert.match(nested.data.message, /^body\.combinedAddress\.planet is not a documented field/);
    assert.ok(Array.isArray(nested.data.details));
  });

  it('names a missing field and a wrong type', async () => {
    const missing = await op(
      'POST',
      `/organizations/${org}/stores`,
      JSON.stringify({ name: 'x', integration: 'api', accountReference: account }),
    );
    assert.equal(missing.data.message, 'body.code is required');
    const wrong = await op('POST', `/organizations/${org}/stores`, JSON.stringify(storeBody({ name: 42 })));
    assert.equal(wrong.statusCode, 400);
    assert.equal(wrong.data.message, 'body.name must be of type string');
  });

  it('does not coerce body types', async () => {
    const res = await op('POST', '/organizations', JSON.stringify({ name: 'x', rendertokenLimit: '5' }));
    assert.equal(res.statusCode, 400);
    assert.equal(res.data.message, 'body.rendertokenLimit must be an integer');
  });

  it('answers another Content-Type on a JSON endpoint with 415', async () => {
    const res = await op('POST', `/organizations/${org}/stores`, 'name=x', 'application/x-www-form-urlencoded');
    assert.equal(res.statusCode, 415);
    assert.equal(res.data.code, 'unsupported_media_type');
    const octet = await op('POST', `/organizations/${org}/stores`, 'abc', 'application/octet-stream');
    assert.equal(octet.statusCode, 415);
    const text = await op('POST', `/organizations/${org}/stores`, '{}', 'text/plain');
    assert.equal(text.statusCode, 415);
    assert.equal(text.data.code, 'unsupported_media_type');
  });

  it('answers a 10 MB JSON body with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024) });
    const res = await op('POST', '/organizations', big);
    assert.equal(res.statusCode, 413);
    assert.equal(res.data.code, 'payload_too_large');
  });

  it('answers unknown routes with a JSON 404 and wrong methods with 405', async () => {
    const missing = await call(t, 'GET', '/v2/nothing-here');
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.data.code, 'not_found');
    const method = await call(t, 'DELETE', '/v2/stores');
    assert.equal(method.statusCode, 405);
    assert.equal(method.data.code, 'method_not_allowed');
    assert.match(String(method.headers.allow), /GET/);
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const given = await call(t, 'GET', '/v2/organization', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(given.headers['x-request-id'], 'abc-123');
    const bad = await call(t, 'GET', '/v2/organization', { headers: { 'x-request-id': 'no spaces <allowed>' } });
    assert.match(String(bad.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const err = await call(t, 'GET', '/v2/stores/nope');
    assert.equal(err.data.requestId, err.headers['x-request-id']);
  });

  it('carries rate-limit headers on authenticated errors too', async () => {
    const res = await call(t, 'GET', '/v2/stores/nope');
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['x-ratelimit']), /^"default";r=\d+;t=0$/);
  });

  it('rejects undocumented query parameters', async () => {
    const res = await call(t, 'GET', '/v2/stores?color=red');
    assert.equal(res.statusCode, 400);
    assert.equal(res.data.message, 'query.color is not a documented field');
  });

  it('replays an Idempotency-Key and refuses it for another request', async () => {
    const first = await call(t, 'POST', '/v2/auth/validate', { headers: { 'idempotency-key': 'k-1' } });
    assert.equal(first.statusCode, 200);
    const again = await call(t, 'POST', '/v2/auth/validate', { headers: { 'idempotency-key': 'k-1' } });
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.data, first.data);
    const org = t.seed.organizations[0];
    const product = org.products!.find((p) => p.status === 'launched')!;
    const quote = {
      quote: {
        storeReference: org.stores[0].reference,
        shippingKind: 'dropship',
        dropshipAddress: { lastname: 'X', streetname: 'Damrak', zipcode: '1012', city: 'Amsterdam', countryCode: 'NL' },
        orderlines: [{ productReference: product.reference, quantity: 1 }],
      },
    };
    const other = await call(t, 'POST', '/v2/quote', { headers: { 'idempotency-key': 'k-1' }, body: quote });
    assert.equal(other.statusCode, 409);
    assert.equal(other.data.code, 'idempotency_key_reused');
  });

  it('serves health, readiness and a public OpenAPI document', async () => {
    assert.equal((await call(t, 'GET', '/healthz', { key: null })).statusCode, 200);
    const ready = await call(t, 'GET', '/readyz', { key: null });
    assert.equal(ready.data.database, 'ok');
    const doc = await call(t, 'GET', '/v2/openapi.json', { key: null });
    assert.equal(doc.statusCode, 200);
    assert.equal(doc.data.openapi, '3.1.0');
  });

  it('treats an empty JSON body as none and refuses a body where none is documented', async () => {
    const empty = await call(t, 'POST', '/v2/auth/validate', {
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(empty.statusCode, 200);
    const body = await call(t, 'POST', '/v2/auth/validate', { body: { a: 1 } });
    assert.equal(body.statusCode, 400);
    assert.match(body.data.message, /body is not accepted/);
  });

  it('refuses numbers out of range and impossible timestamps as 400', async () => {
    const huge = await call(t, 'POST', '/v2/quote', {
      headers: { 'content-type': 'application/json' },
      payload: '{"quote":{"orderlines":[{"quantity":1e400}]}}',
    });
    assert.equal(huge.statusCode, 400);
    assert.equal(huge.data.message, 'body.quote.orderlines[0].quantity is a number out of range');
    for (const ts of ['2026-06-30T23:59:60Z', '0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01']) {
      const res = await call(t, 'GET', `/v2/orders?createdAfter=${encodeURIComponent(ts)}`);
      assert.equal(res.statusCode, 400, ts);
      assert.match(res.data.message, /query\.createdAfter must match format/);
    }
    assert.equal(
      (await call(t, 'GET', `/v2/orders?createdAfter=${encodeURIComponent('2026-06-30T23:59:59.123+02:00')}`))
        .statusCode,
      200,
    );
  });

  it('authenticates and rate-limits unknown /v2 paths like any other', async () => {
    assert.equal((await call(t, 'GET', '/v2/nope', { key: null })).statusCode, 401);
    const known = await call(t, 'GET', '/v2/nope');
    assert.equal(known.statusCode, 404);
    assert.ok(known.headers['x-ratelimit']);
    assert.equal((await call(t, 'DELETE', '/v2/stores', { key: null })).statusCode, 401);
  });

  it('rejects query parameters on routes that document none', async () => {
    const res = await call(t, 'GET', '/v2/organization?x=1');
    assert.equal(res.statusCode, 400);
    assert.equal(res.data.message, 'query.x is not a documented field');
  });
});

/**
 * Test apps compile each route's schemas on first use; served nodes compile them all at start.
 * Both must validate and serialize alike, the shared error body included.
 */
describe('schemas compiled on first use and at start', () => {
  let t: TestApp;
  let atStart: FastifyInstance;
  before(async () => {
    t = await createTestApp();
    atStart = await buildApp(t.s, { operatorToken: OPERATOR_TOKEN, schemas: 'at-start' });
    await atStart.ready();
  });
  after(async () => {
    await atStart.close();
    await t.close();
  });

  const requests = () => [
    { method: 'GET' as const, url: '/v2/products?limit=2' },
    { method: 'GET' as const, url: '/v2/products?limit=nope' },
    { method: 'POST' as const, url: '/v2/orders', body: { order: { orderlines: 'x', extra: 1 } } },
    { method: 'GET' as const, url: '/v2/orders/ORD-NOTHING' },
    { method: 'GET' as const, url: '/v2/organization' },
  ];

  it('answer the same statuses and bodies', async () => {
    for (const r of requests()) {
      const headers = { 'x-service-secret-key': t.key, 'content-type': 'application/json' };
      const payload = r.body === undefined ? undefined : JSON.stringify(r.body);
      const lazy = await t.app.inject({ method: r.method, url: r.url, headers, payload });
      const eager = await atStart.inject({ method: r.method, url: r.url, headers, payload });
      assert.equal(lazy.statusCode, eager.statusCode, `${r.method} ${r.url}`);
      // Request ids and cursors differ between any two answers (a cursor is sealed with a fresh nonce).
      const strip = (body: string) => body.replace(/"(requestId|nextCursor)":"[^"]*"/g, '');
      assert.equal(strip(lazy.body), strip(eager.body), `${r.method} ${r.url}`);
    }
    const statuses = new Set(
      (await Promise.all(requests().map((r) => t.app.inject({ method: r.method, url: r.url })))).map(
        (x) => x.statusCode,
      ),
    );
    assert.ok(statuses.has(401), 'without a key every request is refused alike');
  });
});

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { clientErrorHandler } from '../../src/platform/http/hardening.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';

/** Sends raw bytes to the listening app and returns the whole answer as text. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let out = '';
    socket.on('data', (c) => (out += c.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

/** What a partner meets in the first minutes: each mistake answered so that it can be fixed at once. */
describe('errors at first contact', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  it('lists every problem of a body in details, each with its path', async () => {
    const store = t.seed.organizations[0].stores[0].reference;
    const res = await call(t, 'POST', '/v2/orders', {
      body: {
        order: {
          storeReference: store,
          shippingKind: 'airmail',
          colour: 'red',
          orderlines: [{ productReference: 7, quantity: 'two' }],
        },
      },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.data.code, 'invalid_request');
    const fields = res.data.details.map((d: { field: string }) => d.field).sort();
    assert.deepEqual(fields, [
      'body.order.colour',
      'body.order.orderlines[0].productReference',
      'body.order.orderlines[0].quantity',
      'body.order.shippingKind',
    ]);
    for (const d of res.data.details) assert.ok(d.problem.length > 0, `${d.field} says what is wrong`);
    assert.match(res.data.message, /and 3 more problems in details/);
  });

  it('a single problem keeps a plain message', async () => {
    const res = await call(t, 'POST', '/v2/claim-package-missing', { body: { claim: {} } });
    assert.equal(res.statusCode, 400);
    assert.equal(res.data.message, 'body.claim.shipmentReference is required');
    assert.equal(res.data.details.length, 1);
  });

  it('Authorization: Bearer gets a hint naming X-Service-Secret-Key', async () => {
    const res = await call(t, 'GET', '/v2/orders', { key: null, headers: { authorization: `Bearer ${t.key}` } });
    assert.equal(res.statusCode, 401);
    assert.match(res.data.message, /X-Service-Secret-Key: sk_/);
    assert.match(res.data.message, /Authorization: Bearer/);
    const none = await call(t, 'GET', '/v2/orders', { key: null });
    assert.equal(none.data.message, 'Missing X-Service-Secret-Key header');
  });

  it('not_found repeats the reference it could not find', async () => {
    const ref = 'Order_00000000000000000000000000';
    const res = await call(t, 'GET', `/v2/orders/${ref}`);
    assert.equal(res.statusCode, 404);
    assert.equal(res.data.code, 'not_found');
    assert.equal(res.data.message, `Order ${ref} not found`);
    const claim = await call(t, 'GET', '/v2/claims/Claim_nope');
    assert.equal(claim.data.message, 'Claim Claim_nope not found');
    const image = 'Image_00000000000000000000000000';
    const render = await call(t, 'POST', '/v2/renders', {
      body: { render: { compositionReference: 'Composition_00000000000000000000000000', imageReference: image } },
    });
    assert.equal(render.statusCode, 404);
    assert.match(render.data.message, /Composition_00000000000000000000000000/);
  });

  it('malformed HTTP is a 400 in the {code, message} shape', async () => {
    const answer = await raw(port, 'GET /v2/orders HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400 /);
    const body = bodyOf(answer);
    assert.equal(body.code, 'invalid_request');
    assert.equal(typeof body.message, 'string');
    assert.equal(typeof body.requestId, 'string');
  });

  it('headers too large are a 431 in the {code, message} shape', async () => {
    const answer = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 431 /);
    assert.equal(bodyOf(answer).code, 'request_header_fields_too_large');
  });

  it('a request that took too long is a 408 in the {code, message} shape', async () => {
    // Node raises this after requestTimeout (2 minutes here): the handler is driven directly.
    const socket = new PassThrough();
    let written = '';
    socket.on('data', (c) => (written += c.toString()));
    const err = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    clientErrorHandler(err, socket);
    await new Promise((r) => setImmediate(r));
    assert.match(written, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.equal(bodyOf(written).code, 'request_timeout');
  });
});

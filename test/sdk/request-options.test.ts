import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  Client,
  ConflictError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  VERSION,
  ValidationError,
} from '../../packages/sdk/src/index.ts';

/** A stand-in server that answers what the test queues and records what it received. */
describe('SDK requests', () => {
  let server: http.Server;
  let base: string;
  const seen: http.IncomingHttpHeaders[] = [];
  const answers: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = [];
  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers);
      const a = answers.shift() ?? { status: 200, body: { message: 'ok' } };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(a.body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('names the SDK and its version in the User-Agent, after the application', async () => {
    await new Client({ apiKey: 'sk_test_x', baseUrl: base }).auth.validate();
    assert.match(String(seen.at(-1)!['user-agent']), new RegExp(`^pod-partner-sdk/${VERSION} node/v\\d+`));
    await new Client({ apiKey: 'sk_test_x', baseUrl: base, userAgent: 'my-shop/1.4' }).auth.validate();
    assert.match(String(seen.at(-1)!['user-agent']), new RegExp(`^my-shop/1\\.4 pod-partner-sdk/${VERSION}`));
  });

  it('throws the error class of each status', async () => {
    const client = new Client({ apiKey: 'sk_test_x', baseUrl: base, maxRetries: 0, retryOnRateLimit: false });
    const cases: Array<[number, new (...a: any[]) => Error, Record<string, string>?]> = [
      [400, ValidationError],
      [403, PermissionError],
      [404, NotFoundError],
      [409, ConflictError],
      [429, RateLimitError, { 'retry-after': '7' }],
      [503, ServerError],
    ];
    for (const [status, cls, headers] of cases) {
      answers.push({
        status,
        body: { code: `c${status}`, message: `m${status}`, details: [{ field: 'body.x', problem: 'is required' }] },
        headers,
      });
      const err = await client.orders.get('Order_x').catch((e: unknown) => e);
      assert.ok(err instanceof cls, `${status} is a ${cls.name}`);
      if (err instanceof ValidationError) assert.deepEqual(err.details, [{ field: 'body.x', problem: 'is required' }]);
      if (err instanceof RateLimitError) assert.equal(err.retryAfter, 7);
    }
  });

  it('takes the time-out and the retries per call', async () => {
    const client = new Client({ apiKey: 'sk_test_x', baseUrl: base, maxRetries: 3 });
    const before = seen.length;
    answers.push({ status: 500, body: { code: 'internal_error', message: 'x' } });
    const err = await client.orders.get('Order_x', { maxRetries: 0 }).catch((e: unknown) => e);
    assert.ok(err instanceof ServerError);
    assert.equal(seen.length - before, 1, 'no retry with maxRetries: 0 on the call');

    answers.push({ status: 429, body: { code: 'rate_limited', message: 'wait' }, headers: { 'retry-after': '1' } });
    const limited = await client.orders.get('Order_x', { retryOnRateLimit: false }).catch((e: unknown) => e);
    assert.ok(limited instanceof RateLimitError, 'no wait with retryOnRateLimit: false on the call');

    const slow = http.createServer(() => {}); // never answers
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const c = new Client({
        apiKey: 'sk_test_x',
        baseUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
        maxRetries: 0,
      });
      const timedOut = await c.orders.get('Order_x', { timeoutMs: 50 }).catch((e: unknown) => e);
      assert.match(String((timedOut as Error).message), /timed out after 50 ms/);
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});

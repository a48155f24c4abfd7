import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { expectError } from '../orders/helpers.ts';
import { clearEndpoints, createEndpoint } from './helpers.ts';

describe('probing through the API', () => {
  let t: TestApp;
  before(async () => {
    // Buckets that never refill: the counts below are exact however slow the machine is.
    t = await createTestApp({ rateLimits: new MemoryRateLimitStore(() => 0) });
  });
  after(() => t.close());

  it('invalid keys are throttled per client address, valid keys are not touched', async () => {
    let first429 = 0;
    for (let i = 0; i < 120 && !first429; i++) {
      const res = await call(t, 'GET', '/v2/orders', { key: `sk_test_${'x'.repeat(20)}${i}` });
      if (res.statusCode === 429) first429 = i + 1;
      else assert.equal(res.statusCode, 401);
    }
    assert.equal(first429, 61, 'the 61st invalid key within a minute is refused');
    const refused = await call(t, 'GET', '/v2/orders', { key: 'sk_test_still-guessing' });
    expectError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal((await call(t, 'GET', '/v2/orders')).statusCode, 200, 'a valid key from the same address works');
  });

  it('the test ping reports connection failures generically and is rate-limited', async () => {
    await clearEndpoints(t);
    const ep = await createEndpoint(t, 'http://127.0.0.1:9/closed-port');
    const res = await call(t, 'POST', `/v2/webhook-endpoints/${ep.reference}/test`);
    assert.equal(res.statusCode, 200, res.body);
    const attempt = res.data.webhookDelivery.attempts[0];
    assert.equal(attempt.responseStatus, null);
    assert.equal(attempt.error, 'could not connect to the endpoint', 'no ECONNREFUSED, no port map');
    let limited = 0;
    for (let i = 0; i < 12 && !limited; i++) {
      const r = await call(t, 'POST', `/v2/webhook-endpoints/${ep.reference}/test`);
      if (r.statusCode === 429) limited = i + 2;
    }
    assert.equal(limited, 11, 'ten test pings a minute');
    await clearEndpoints(t);
  });

  it('the test ping gives up on a silent endpoint after 3 s, not the 10 s of a delivery', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => sockets.add(s.on('error', () => {})));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const other = await createTestApp({
      rateLimits: new MemoryRateLimitStore(() => 0),
      env: { CALLBACK_TIMEOUT_MS: '10000' },
    });
    try {
      const ep = await createEndpoint(other, `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/hook`);
      const started = Date.now();
      const res = await call(other, 'POST', `/v2/webhook-endpoints/${ep.reference}/test`);
      const took = Date.now() - started;
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.data.webhookDelivery.attempts[0].error, /timed out after 3000 ms/);
      assert.ok(took >= 2900 && took < 8000, `answered after ${took} ms`);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
      await other.close();
    }
  });
});

describe('production behind plain http', () => {
  it('refuses to start on an http PUBLIC_BASE_URL unless a TLS proxy is declared, then cookies are Secure', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    assert.throws(
      () => loadConfig({ APP_ENV: 'production', PUBLIC_BASE_URL: 'http://api.example.com' }),
      /TRUST_PROXY/,
    );
    assert.equal(loadConfig({ APP_ENV: 'production', PUBLIC_BASE_URL: 'http://127.0.0.1:3000' }).trustProxy, false);
    const t = await createTestApp({
      env: { APP_ENV: 'production', PUBLIC_BASE_URL: 'http://api.example.com', TRUST_PROXY: 'true' },
    });
    try {
      const page = await t.app.inject({ method: 'GET', url: '/dashboard/sign-in' });
      const cookies = [page.headers['set-cookie']].flat().filter(Boolean).join('\n');
      assert.match(cookies, /Secure/);
    } finally {
      await t.close();
    }
  });
});

describe('cursors', () => {
  it('are opaque: no readable position, no forging, scoped to their list', async () => {
    const { Cursors } = await import('../../src/platform/http/pagination.ts');
    const c = new Cursors('a-secret');
    const token = c.encode('orders', 445);
    assert.ok(!Buffer.from(token, 'base64url').toString('latin1').includes('445'), 'the position is not readable');
    assert.ok(!token.includes('orders'));
    assert.equal(c.decode('orders', token), 445);
    assert.notEqual(c.encode('orders', 445), token, 'the same position gives a different cursor each time');
    assert.throws(() => c.decode('claims', token), /cursor is not one this list issued/);
    assert.throws(() => new Cursors('another-secret').decode('orders', token), /cursor is not one/);
    const forged = Buffer.from(JSON.stringify(['orders', 1])).toString('base64url');
    assert.throws(() => c.decode('orders', forged), /cursor is not one/);
    const flipped = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.slice(-1)}`;
    assert.notEqual(flipped, token);
    assert.throws(() => c.decode('orders', flipped), /cursor is not one/);
  });
});

import assert from 'node:assert/strict';
import dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { checkCallbackUrl, deliver } from '../../src/platform/http/targets.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { recordFigures } from './support.ts';

const PRIVATE_TARGETS = [
  'http://127.0.0.1/hook',
  'http://127.1/hook',
  'http://2130706433/hook',
  'http://0x7f.0.0.1/hook',
  'http://localhost/hook',
  'http://LOCALHOST:8080/x',
  'http://api.localhost/hook',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:7f00:1]/hook',
  'http://0.0.0.0/hook',
  'http://[::]/hook',
  'http://10.1.2.3/hook',
  'http://172.16.0.9/hook',
  'http://192.168.1.1/hook',
  'http://100.64.0.1/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fe80::1]/hook',
  'http://[fd00::1]/hook',
  'https://10.0.0.1:8443/hook',
  'http://224.0.0.1/hook',
];

interface Receiver {
  server: Server;
  port: number;
  hits: string[];
}

async function receiver(
  answer: (url: string) => { status: number; headers?: Record<string, string> },
): Promise<Receiver> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const a = answer(req.url ?? '');
    res.writeHead(a.status, a.headers);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

/** Answers every name with `answers()` (called once per lookup), so DNS can change between calls. */
function fakeDns(names: Set<string>, answers: () => string) {
  const real = dns.lookup;
  (dns as any).lookup = (host: string, options: any, cb: any) => {
    if (typeof options === 'function') [cb, options] = [options, {}];
    if (!names.has(host)) return (real as any)(host, options, cb);
    const address = answers();
    const entry = { address, family: address.includes(':') ? 6 : 4 };
    process.nextTick(() => (options?.all ? cb(null, [entry]) : cb(null, entry.address, entry.family)));
  };
  syncBuiltinESMExports();
  return () => {
    (dns as any).lookup = real;
    syncBuiltinESMExports();
  };
}

describe('SSRF: callback and webhook targets in production', () => {
  let t: TestApp;
  let refused = 0;
  let target: Receiver;
  let redirector: Receiver;

  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production', CALLBACK_TIMEOUT_MS: '3000' } });
    target = await receiver(() => ({ status: 200 }));
    redirector = await receiver(() => ({
      status: 302,
      headers: { location: `http://127.0.0.1:${target.port}/internal` },
    }));
  });
  after(async () => {
    recordFigures('ssrf', { ssrfRefused: refused });
    target?.server.close();
    redirector?.server.close();
    await t?.close();
  });

  it('refuses loopback, private, link-local and metadata webhook URLs on create and on update', async () => {
    const created = await call(t, 'POST', '/v2/webhook-endpoints', {
      body: { webhookEndpoint: { url: 'https://hooks.example.com/x', eventTypes: ['order.created'] } },
    });
    assert.equal(created.statusCode, 200, created.body);
    const ref = created.data.webhookEndpoint.reference;
    for (const url of PRIVATE_TARGETS) {
      const res = await call(t, 'POST', '/v2/webhook-endpoints', {
        body: { webhookEndpoint: { url, eventTypes: ['order.created'] } },
      });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.equal(typeof res.data.code, 'string');
      const upd = await call(t, 'PATCH', `/v2/webhook-endpoints/${ref}`, { body: { webhookEndpoint: { url } } });
      assert.equal(upd.statusCode, 400, `PATCH ${url}: ${upd.body}`);
      refused += 2;
    }
  });

  it('refuses the same targets as a store callback URL', async () => {
    const org = t.seed.organizations[0];
    for (const url of PRIVATE_TARGETS) {
      const res = await operator(t, 'PATCH', `/organizations/${org.reference}/stores/${org.stores[0].reference}`, {
        callbackUrl: url,
      });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      refused++;
    }
  });

  it('checks the address at connect time: a name that resolves to loopback is refused', async () => {
    const name = hostname();
    const resolved = await dns.promises.lookup(name).catch(() => null);
    if (!resolved || !/^127\./.test(resolved.address)) {
      recordFigures('ssrf', { skipped: [`${name} does not resolve to loopback here`] });
      return;
    }
    // the name passes the shape check (it is not an address), then fails at connection
    assert.doesNotThrow(() =>
      checkCallbackUrl(`http://${name}:${target.port}/`, { allowPrivate: false, field: 'url' }),
    );
    for (const host of [name]) {
      const res = await deliver(`http://${host}:${target.port}/cb`, {
        method: 'GET',
        timeoutMs: 3000,
        allowPrivate: false,
      });
      assert.equal(res.status, null, `${host}: ${JSON.stringify(res)}`);
      assert.match(res.error ?? '', /private|loopback/i);
      refused++;
    }
    assert.deepEqual(target.hits, []);
  });

  it('refuses a DNS answer that changes to a private address between the check and the connection', async () => {
    let calls = 0;
    const restore = fakeDns(new Set(['rebind.example']), () => (calls++ === 0 ? '93.184.216.34' : '127.0.0.1'));
    try {
      // a validating client resolves first and sees a public address…
      const first = await new Promise<string>((resolve, reject) =>
        dns.lookup('rebind.example', (err, address) => (err ? reject(err) : resolve(address))),
      );
      assert.equal(first, '93.184.216.34');
      // …the delivery resolves again at connect time and refuses the private answer
      const res = await deliver(`http://rebind.example:${target.port}/cb`, {
        method: 'POST',
        body: '{}',
        timeoutMs: 3000,
        allowPrivate: false,
      });
      assert.equal(res.status, null, JSON.stringify(res));
      assert.match(res.error ?? '', /private/);
      refused++;
      // and through the service: the endpoint is accepted (a name), the delivery never connects
      const created = await call(t, 'POST', '/v2/webhook-endpoints', {
        body: { webhookEndpoint: { url: `http://rebind.example:${target.port}/hook`, eventTypes: ['order.created'] } },
      });
      assert.equal(created.statusCode, 200, created.body);
      const test = await call(t, 'POST', `/v2/webhook-endpoints/${created.data.webhookEndpoint.reference}/test`);
      assert.ok(test.statusCode < 500, test.body);
      await t.s.worker.drain(10);
      refused++;
    } finally {
      restore();
    }
    assert.deepEqual(target.hits, []);
  });

  it('does not follow redirects, even to where a client may go', async () => {
    const res = await deliver(`http://127.0.0.1:${redirector.port}/start`, {
      method: 'POST',
      body: '{}',
      timeoutMs: 3000,
      allowPrivate: true,
    });
    assert.equal(res.status, 302);
    assert.equal(redirector.hits.length, 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(target.hits, [], 'the redirect target was never requested');
    refused++;
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { PgliteDb } from '../../src/platform/db/pglite.ts';
import { LocalBlobStore } from '../../src/platform/storage.ts';
import { embeddedIpv4, isPrivateAddress } from '../../src/platform/http/targets.ts';
import { createLogger, redactUrl } from '../../src/runtime.ts';
import { seedDemoUnlessProduction } from '../../src/seed/demo.ts';
import { OPERATOR_TOKEN, type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, expectError, orderBody, uploadImage } from '../orders/helpers.ts';
import { PODCTL_ENTRY } from '../support/podctl.ts';

/** A logger that keeps every line it writes. */
function capturingLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { log: createLogger({ logLevel: 'info' }, sink), lines };
}

describe('hostile clients probing from outside', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('a lone UTF-16 surrogate in any body string is a 400 naming the field, never a 500', async () => {
    const image = await uploadImage(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ customIdentifier: 'shop-\ud800' }, 'body.order.customIdentifier'],
      [{ dropshipAddress: { ...ADDRESS, city: 'Amster\udfffdam' } }, 'body.order.dropshipAddress.city'],
      [
        {
          orderlines: [
            {
              productReference: orderBody(t, image).order.orderlines[0].productReference,
              imageReference: image,
              quantity: 1,
              annotations: [{ key: 'note', value: '\ud800' }],
            },
          ],
        },
        'body.order.orderlines[0].annotations[0].value',
      ],
    ];
    for (const [patch, field] of cases) {
      const headers = { 'idempotency-key': `surrogate-${field}` };
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await call(t, 'POST', '/v2/orders', { body: orderBody(t, image, patch), headers });
        expectError(res, 400, 'invalid_request');
        assert.ok(res.data.message.startsWith(field), res.data.message);
        assert.match(res.data.message, /well-formed Unicode/);
      }
    }
    const order = await createOrder(t, orderBody(t, image));
    const put = await call(t, 'PUT', `/v2/orders/${order}/dropship-address`, {
      body: { dropshipAddress: { ...ADDRESS, lastname: 'Jan\udfff' } },
    });
    expectError(put, 400, 'invalid_request');
    // A well-formed pair (an emoji) is fine.
    const ok = await call(t, 'POST', '/v2/orders', { body: orderBody(t, image, { customIdentifier: 'gift-🎁' }) });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('logged URLs carry no query values (invitation tokens, keys)', async () => {
    assert.equal(
      redactUrl('/dashboard/invitation?token=abc&x=1'),
      '/dashboard/invitation?token=[redacted]&x=[redacted]',
    );
    assert.equal(redactUrl('/v2/orders'), '/v2/orders');
    const { log, lines } = capturingLogger();
    const app = await buildApp({ ...t.s, log }, { operatorToken: OPERATOR_TOKEN, logRequests: true });
    try {
      await app.inject({ method: 'GET', url: '/dashboard/invitation?token=secret-invitation-token-123' });
      await app.inject({ method: 'GET', url: '/v2/orders?key=sk_test_leakedleakedleaked' });
      await app.inject({ method: 'GET', url: '/operator/organizations?token=op-secret-token' });
    } finally {
      await app.close();
    }
    const text = lines.join('\n');
    assert.ok(lines.length >= 3, 'the requests were logged');
    for (const secret of ['secret-invitation-token-123', 'sk_test_leakedleakedleaked', 'op-secret-token'])
      assert.ok(!text.includes(secret), `${secret} is not in the log`);
    assert.match(text, /token=\[redacted\]/);
  });

  it('a client that aborts its upload is not logged as a database failure', async () => {
    const { log, lines } = capturingLogger();
    const app = await buildApp({ ...t.s, log }, { operatorToken: OPERATOR_TOKEN, logRequests: true });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as net.AddressInfo).port;
      await new Promise<void>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.write(
            `POST /v2/orders HTTP/1.1\r\nHost: x\r\nX-Service-Secret-Key: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
          );
          setTimeout(() => socket.destroy(), 200);
        });
        socket.on('close', () => resolve());
        socket.on('error', () => {});
      });
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      await app.close();
    }
    const text = lines.join('\n');
    assert.ok(!/database unavailable/.test(text), 'no database alarm for a client abort');
    assert.ok(!lines.some((l) => JSON.parse(l).level >= 50), 'nothing at error level');
  });
});

describe('file permissions', () => {
  it("blobs are 0600 in 0700 folders, and the embedded database is the service user's alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pod-perm-'));
    try {
      const blobs = new LocalBlobStore(join(dir, 'blobs'));
      await blobs.put('images/org/abc.png', Buffer.from('x'));
      assert.equal(statSync(join(dir, 'blobs', 'images', 'org', 'abc.png')).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'blobs', 'images', 'org')).mode & 0o777, 0o700);
      const db = await PgliteDb.open({ dataDir: join(dir, 'pglite') });
      await db.close();
      const loose: string[] = [];
      const walk = (d: string) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          const p = join(d, e.name);
          if ((statSync(p).mode & 0o077) !== 0) loose.push(p);
          if (e.isDirectory()) walk(p);
        }
      };
      walk(join(dir, 'pglite'));
      assert.deepEqual(loose, [], 'no file of the database is readable by others');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('seeding in production', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
  });
  after(() => t.close());
  it('is refused, through the operator API and the services', async () => {
    const res = await operator(t, 'POST', '/seed');
    expectError(res, 403, 'not_in_production');
    await assert.rejects(() => seedDemoUnlessProduction(t.s), /never seeded in production/);
  });
  it("the first operator gets a password of the operator's choosing, none published", async () => {
    const res = await operator(t, 'POST', '/users', {
      email: 'first-operator@example.com',
      password: 'a-long-generated-secret',
    });
    assert.equal(res.statusCode, 200, res.body);
    const signIn = await t.s.dashboard.signIn({
      email: 'first-operator@example.com',
      password: 'a-long-generated-secret',
      ip: '127.0.0.1',
    });
    assert.ok(signIn.session);
  });
  it('refuses the published demo passwords for any account', async () => {
    for (const password of ['operator-password-1', 'demo-password-1']) {
      const res = await operator(t, 'POST', '/users', { email: `op-${password}@example.com`, password });
      expectError(res, 400, 'password_published');
    }
    // Every demo sign-in the seed creates is on the list. `t.seed` is the seed's own result, kept with
    // the template every app is cloned from (a production app replaces only the API keys).
    const { PUBLISHED_PASSWORDS } = await import('../../src/modules/dashboard/service.ts');
    assert.ok(t.seed.dashboardUsers?.length);
    for (const u of t.seed.dashboardUsers ?? []) assert.ok(PUBLISHED_PASSWORDS.has(u.password), u.email);
  });
  it('`podctl users create-operator` without --password generates one, shows it once, and it signs in', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
    const child = spawn(
      process.execPath,
      [...PODCTL_ENTRY, '--url', url, 'users', 'create-operator', '--email', 'cli-operator@example.com', '--json'],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', OPERATOR_TOKEN } },
    );
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const [code] = (await once(child, 'close')) as [number];
    assert.equal(code, 0, out);
    const { password, user } = JSON.parse(out);
    assert.equal(user.email, 'cli-operator@example.com');
    assert.ok(typeof password === 'string' && password.length >= 20, 'a long generated password');
    const signIn = await t.s.dashboard.signIn({ email: 'cli-operator@example.com', password, ip: '127.0.0.1' });
    assert.ok(signIn.session);
  });
});

describe('SSRF: IPv6 forms that embed an IPv4 address', () => {
  const cases: Array<[string, boolean]> = [
    ['::127.0.0.1', true],
    ['64:ff9b::7f00:1', true],
    ['::ffff:0:7f00:1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:a9fe:a9fe', true],
    ['2002:7f00:1::1', true],
    ['2002:c0a8:101::1', true],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', true],
    ['64:ff9b:1::a00:1', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['2606:4700::1111', false],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::808:808', false],
    ['2002:808:808::1', false],
  ];
  for (const [address, blocked] of cases) {
    it(`${address} is ${blocked ? 'refused' : 'allowed'}${embeddedIpv4(address).length ? ` (embeds ${embeddedIpv4(address).join(', ')})` : ''}`, () => {
      assert.equal(isPrivateAddress(address), blocked);
    });
  }

  describe('in production', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp({ env: { APP_ENV: 'production' } });
    });
    after(() => t.close());
    it('webhook endpoints on such hosts are refused', async () => {
      const key = t.seed.organizations[0].apiKeys.full;
      for (const host of ['[::127.0.0.1]', '[64:ff9b::7f00:1]', '[::ffff:0:7f00:1]', '[2002:7f00:1::1]']) {
        const res = await call(t, 'POST', '/v2/webhook-endpoints', {
          key,
          body: { webhookEndpoint: { url: `https://${host}/hooks`, eventTypes: ['order.created'] } },
        });
        expectError(res, 400, 'invalid_request');
      }
    });
  });
});

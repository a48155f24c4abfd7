import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { REDACT } from '../../src/runtime.ts';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { createServices } from '../../src/services.ts';
import { Agent, csrfOf } from '../dashboard/helpers.ts';
import { OPERATOR_TOKEN, type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { buildWorld, recordFigures } from './support.ts';

/**
 * A full run through an app that logs like production (every request, through pino, at debug) into
 * memory; then the database and the log are searched for every secret the run used.
 */
describe('secrets at rest and in logs', () => {
  let base: TestApp;
  let t: TestApp;
  const log: string[] = [];
  const secrets = new Map<string, string>();

  before(async () => {
    base = await createTestApp();
    const sink = new Writable({
      write(chunk, _enc, done) {
        log.push(String(chunk));
        done();
      },
    });
    const logger = pino({ level: 'debug', redact: { paths: REDACT, censor: '[redacted]' } }, sink);
    const s = createServices({
      config: base.s.config,
      db: base.db,
      clock: base.clock,
      log: logger as never,
      rateLimits: new MemoryRateLimitStore(),
      secretKey: 'test-secret-key',
      blobs: base.s.blobs,
    });
    const app = await buildApp(s, { operatorToken: OPERATOR_TOKEN, logRequests: true });
    await app.ready();
    t = { ...base, app, s };
    secrets
      .set('full API key', t.key)
      .set('read-only API key', t.readOnlyKey)
      .set('other organization key', t.otherKey)
      .set('operator token', OPERATOR_TOKEN);

    // A full run: both worlds, failed webhook deliveries (logged), key creation, dashboard sign-ins.
    for (const org of [0, 1]) {
      const w = await buildWorld(t, org);
      for (const [i, x] of w.secrets.entries()) secrets.set(`webhook secret ${org}.${i}`, x);
      const ep = (await call(t, 'GET', '/v2/webhook-endpoints', { key: w.key })).data.webhookEndpoints[0].reference;
      const rotated = await call(t, 'POST', `/v2/webhook-endpoints/${ep}/rotate-secret`, { key: w.key });
      assert.equal(rotated.statusCode, 200, rotated.body);
      secrets.set(`rotated webhook secret ${org}`, rotated.data.webhookEndpoint.secret);
      await call(t, 'POST', `/v2/webhook-endpoints/${ep}/test`, { key: w.key });
    }
    await t.s.worker.drain(20);
    const created = await operator(t, 'POST', `/organizations/${t.seed.organizations[0].reference}/api-keys`, {
      name: 'scan me',
    });
    assert.equal(created.statusCode, 200, created.body);
    secrets.set('operator-created key', created.data.apiKey.secret);
    await call(t, 'GET', '/v2/organization', { key: created.data.apiKey.secret });
    await call(t, 'GET', '/v2/organization', { key: `${t.key}x` });
    for (const user of t.seed.dashboardUsers ?? []) {
      secrets.set(`dashboard password of ${user.email}`, user.password);
      const a = new Agent(t);
      const area = user.role === 'operator' ? 'console' : 'dashboard';
      const page = await a.get(`/${area}/sign-in`);
      await a.post(`/${area}/sign-in`, { _csrf: csrfOf(page.body), email: user.email, password: user.password });
      await a.post(`/${area}/sign-in`, {
        _csrf: csrfOf(page.body),
        email: user.email,
        password: `${user.password}-wrong`,
      });
    }
    // an error path that logs the request
    await call(t, 'POST', '/v2/orders', { body: { order: { storeReference: 'Store_x' } } });
    await app.close();
  });
  after(() => base?.close());

  /** The secret, and its random part alone (what a careless encoding would keep). */
  function needles(): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const [name, value] of secrets) {
      out.push([name, value]);
      const tail = value.replace(/^(sk_(test|live)_|whsec_)/, '');
      if (tail !== value && tail.length >= 16) out.push([`${name} (random part)`, tail]);
      out.push([`${name} (hex)`, Buffer.from(value).toString('hex')]);
    }
    return out;
  }

  it('keeps no secret in plain text in any column of any table', async () => {
    assert.ok(secrets.size >= 8, `secrets of the run: ${[...secrets.keys()].join(', ')}`);
    const tables = await t.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    assert.ok(tables.length >= 10, `tables: ${tables.map((x) => x.table_name).join(', ')}`);
    const found: string[] = [];
    let rowsScanned = 0;
    for (const { table_name } of tables) {
      const rows = await t.db.query<{ r: string }>(`SELECT x::text AS r FROM "${table_name}" x`);
      rowsScanned += rows.length;
      for (const { r } of rows) {
        for (const [name, needle] of needles()) if (r.includes(needle)) found.push(`${table_name}: ${name}`);
      }
    }
    recordFigures('secrets-db', {
      secretsScanned: secrets.size,
      secretsLeaked: found.length,
      notes: [`secrets: ${secrets.size} secrets searched in ${rowsScanned} rows of ${tables.length} tables`],
    });
    assert.deepEqual([...new Set(found)], []);
  });

  it('writes no secret into the logs', () => {
    const text = log.join('');
    assert.ok(log.length > 50, `the run was logged (${log.length} lines)`);
    assert.match(text, /"reqId"|"req"/, 'request logs are captured');
    const found = needles()
      .filter(([, needle]) => text.includes(needle))
      .map(([name]) => name);
    recordFigures('secrets-logs', {
      secretsLeaked: found.length,
      notes: [`logs: ${secrets.size} secrets searched in ${log.length} log lines`],
    });
    assert.deepEqual(found, []);
  });
});

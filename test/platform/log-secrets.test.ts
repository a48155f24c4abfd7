import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/runtime.ts';
import { OPERATOR_TOKEN, type TestApp, createTestApp } from '../support/app.ts';

const WEBHOOK_SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LW9mLWEtcGFydG5lcg==';

/** A logger that keeps every line it writes. */
function capturing() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger({ logLevel: 'info' }, sink), text: () => lines.join('') };
}

describe('secrets never reach the logs', () => {
  let t: TestApp;
  let app: FastifyInstance;
  const server = capturing();
  before(async () => {
    t = await createTestApp();
    // The same services, answering through an app that logs like the server does.
    app = await buildApp({ ...t.s, log: server.log }, { operatorToken: OPERATOR_TOKEN, logRequests: true });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await t.close();
  });

  it('an API key in a path, a webhook secret or the operator token in a refused body: redacted in both logs', async () => {
    const headers = { 'x-service-secret-key': t.key, 'content-type': 'application/json' };
    const sent = [
      await app.inject({ method: 'GET', url: `/v2/orders/${t.key}`, headers }),
      await app.inject({ method: 'GET', url: `/v2/${t.otherKey}/x`, headers }),
      await app.inject({ method: 'GET', url: `/v2/orders/${encodeURIComponent(WEBHOOK_SECRET)}`, headers }),
      await app.inject({
        method: 'POST',
        url: '/v2/webhook-endpoints',
        headers,
        payload: JSON.stringify({ webhookEndpoint: { url: 'https://hooks.example/in', note: WEBHOOK_SECRET } }),
      }),
      await app.inject({
        method: 'POST',
        url: '/v2/orders',
        headers,
        payload: JSON.stringify({ order: { customIdentifier: `pasted ${OPERATOR_TOKEN} by mistake` } }),
      }),
    ];
    for (const res of sent) assert.ok(res.statusCode >= 400, res.body);
    await t.s.requestLog.flush();
    const requestLog = JSON.stringify(await t.s.requestLog.list(t.seed.organizations[0].reference, { limit: 50 }));
    const serverLog = server.text();
    for (const [name, text] of [
      ['request log', requestLog],
      ['server log', serverLog],
    ]) {
      for (const secret of [t.key, t.otherKey, WEBHOOK_SECRET, encodeURIComponent(WEBHOOK_SECRET), OPERATOR_TOKEN])
        assert.ok(!text.includes(secret), `${name} holds ${secret.slice(0, 12)}…`);
      assert.ok(text.includes('/v2/orders/[redacted key]'), `${name} keeps the path, redacted`);
    }
    assert.ok(requestLog.includes('[redacted secret]'), 'the bodies were recorded, redacted');
    assert.match(requestLog, /pasted \[redacted secret\] by mistake/);
  });

  it('an error quoting what a client sent is logged without the secret', () => {
    const { log, text } = capturing();
    log.error({ err: new Error(`bad value ${WEBHOOK_SECRET} near ${OPERATOR_TOKEN}`) }, 'unhandled error');
    assert.ok(text().includes('bad value [redacted secret] near [redacted secret]'), text());
  });
});

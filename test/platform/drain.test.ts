import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startDraining } from '../../src/platform/http/drain.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';

describe('graceful drain before a stop', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('takes the node out of rotation (readyz 503) while it keeps answering, each answer closing its connection', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.notEqual(ready.headers.connection, 'close');
    startDraining(t.app);
    const draining = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(draining.statusCode, 503);
    assert.equal(draining.json().status, 'draining');
    const res = await call(t, 'GET', '/v2/organization');
    assert.equal(res.statusCode, 200, 'requests that still arrive are served');
    assert.equal(res.headers.connection, 'close');
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'alive all the same');
  });

  it('drains 5 s by default in production and not at all in the test environment', () => {
    assert.equal(
      loadConfig({ APP_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com' }).shutdownDrainSeconds,
      5,
    );
    assert.equal(loadConfig({}).shutdownDrainSeconds, 0);
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_SECONDS: '12' }).shutdownDrainSeconds, 12);
  });
});

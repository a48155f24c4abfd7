import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

describe('authentication', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('validates a key', async () => {
    const res = await call(t, 'POST', '/v2/auth/validate');
    assert.equal(res.statusCode, 200);
    assert.match(res.data.message, /valid/);
  });

  it('rejects a missing, empty, unknown or overlong key with 401 and no rate-limit headers', async () => {
    for (const key of [null, '', 'sk_test_nope', `sk_test_${'x'.repeat(500)}`]) {
      const res = await call(t, 'POST', '/v2/auth/validate', { key });
      assert.equal(res.statusCode, 401, String(key));
      assert.equal(res.data.code, 'unauthorized');
      assert.ok(res.data.message);
      assert.ok(res.data.requestId);
      assert.equal(res.headers['x-ratelimit'], undefined);
    }
  });

  it('names a key of the other environment', async () => {
    const res = await call(t, 'GET', '/v2/organization', { key: `sk_live_${'a'.repeat(40)}` });
    assert.equal(res.statusCode, 401);
    assert.match(res.data.message, /production key/);
  });

  it('revokes a key at once on this node', async () => {
    const org = t.seed.organizations[0].reference;
    const created = await operator(t, 'POST', `/organizations/${org}/api-keys`, { name: 'temp' });
    assert.equal(created.statusCode, 200);
    const secret = created.data.apiKey.secret;
    assert.match(secret, /^sk_test_[0-9a-z]{40}$/);
    assert.equal((await call(t, 'GET', '/v2/organization', { key: secret })).statusCode, 200);
    const revoked = await operator(t, 'POST', `/organizations/${org}/api-keys/${created.data.apiKey.reference}/revoke`);
    assert.equal(revoked.statusCode, 200);
    assert.ok(revoked.data.apiKey.revoked);
    const after = await call(t, 'GET', '/v2/organization', { key: secret });
    assert.equal(after.statusCode, 401);
    assert.equal(after.data.code, 'unauthorized');
  });

  it('lets a read-only key read and validate but not write', async () => {
    assert.equal((await call(t, 'GET', '/v2/stores', { key: t.readOnlyKey })).statusCode, 200);
    assert.equal((await call(t, 'POST', '/v2/auth/validate', { key: t.readOnlyKey })).statusCode, 200);
    const write = await call(t, 'POST', '/v2/orders', { key: t.readOnlyKey, body: { order: {} } });
    assert.equal(write.statusCode, 403);
    assert.equal(write.data.code, 'insufficient_permissions');
  });

  it('stores only a hash of the secret', async () => {
    const rows = await t.db.query('SELECT key_hash, hint FROM api_keys');
    for (const r of rows) {
      assert.match(r.key_hash, /^[0-9a-f]{64}$/);
      assert.ok(!rows.some(() => r.key_hash === t.key));
    }
    const dump = JSON.stringify(rows);
    assert.ok(!dump.includes(t.key));
  });

  it('lists keys with last-used time and never the secret', async () => {
    const org = t.seed.organizations[0].reference;
    const res = await operator(t, 'GET', `/organizations/${org}/api-keys`);
    assert.equal(res.statusCode, 200);
    const full = res.data.apiKeys.find((k: any) => k.name === 'demo (full access)' && !k.revoked);
    assert.ok(full.lastUsed, 'last used is recorded');
    assert.equal(full.secret, undefined);
    assert.ok(!JSON.stringify(res.data).includes(t.key));
  });

  it('refuses the operator API without the operator token', async () => {
    const res = await call(t, 'GET', '/operator/organizations', {
      key: null,
      headers: { authorization: 'Bearer wrong' },
    });
    assert.equal(res.statusCode, 401);
    const none = await call(t, 'GET', '/operator/organizations', { key: null });
    assert.equal(none.statusCode, 401);
  });
});

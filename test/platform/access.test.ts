import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import {
  KeyCache,
  type Principal,
  hashSecret,
  installAuth,
  requireDeclaredAccess,
} from '../../src/platform/http/auth.ts';
import { installErrorHandling } from '../../src/platform/http/error-handler.ts';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';

const principal = (readOnly: boolean): Principal => ({
  organizationId: 'Organization_0123456789abcdefghjkmnpqrs',
  keyId: readOnly ? 'read-only' : 'full',
  keyName: readOnly ? 'read-only' : 'full',
  readOnly,
  rateLimits: null,
});

describe('route access', () => {
  it('refuses a route that declares no access when it is registered', async () => {
    const app = Fastify();
    requireDeclaredAccess(app);
    assert.throws(
      () => app.get('/undeclared', async () => 'ok'),
      /GET \/undeclared declares no access: add config\.access \(read, write, public, operator\)/,
    );
    assert.throws(
      () => app.post('/misspelt', { config: { access: 'writes' as never } }, async () => 'ok'),
      /declares no access/,
    );
    app.get('/declared', { config: { access: 'read' } }, async () => 'ok');
    await app.close();
  });

  describe('is read by the auth hook, not inferred from the method', () => {
    let app: FastifyInstance;
    before(async () => {
      app = Fastify();
      requireDeclaredAccess(app);
      installErrorHandling(app);
      const keys = new KeyCache(
        {
          resolve: async (hash) => {
            if (hash === hashSecret('sk_test_full')) return principal(false);
            if (hash === hashSecret('sk_test_read')) return principal(true);
            return null;
          },
          touch: async () => {},
        },
        10_000,
      );
      installAuth(app, {
        config: loadConfig({ APP_ENV: 'test', DATA_DIR: '/tmp' }),
        keys,
        rateLimits: new MemoryRateLimitStore(),
      });
      app.get('/report', { config: { access: 'write' } }, async () => ({ ok: true }));
      app.post('/check', { config: { access: 'read' } }, async () => ({ ok: true }));
      app.get('/open', { config: { access: 'public' } }, async () => ({ ok: true }));
      await app.ready();
    });
    after(() => app.close());

    const call = (method: 'GET' | 'POST', url: string, key?: string) =>
      app.inject({ method, url, headers: key ? { 'x-service-secret-key': key } : {} });

    it('a GET declared write refuses a read-only key', async () => {
      const res = await call('GET', '/report', 'sk_test_read');
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'insufficient_permissions');
      assert.equal((await call('GET', '/report', 'sk_test_full')).statusCode, 200);
    });

    it('a POST declared read takes a read-only key', async () => {
      assert.equal((await call('POST', '/check', 'sk_test_read')).statusCode, 200);
    });

    it('a public route needs no key; the others do', async () => {
      assert.equal((await call('GET', '/open')).statusCode, 200);
      const res = await call('POST', '/check');
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().code, 'unauthorized');
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';

describe('every test helper in production', () => {
  let test: TestApp;
  let prod: TestApp;
  before(async () => {
    test = await createTestApp();
    prod = await createTestApp({ env: { APP_ENV: 'production' } });
  });
  after(async () => {
    await test.close();
    await prod.close();
  });

  it('is a 404 not_found, for every path and method the test environment documents', async () => {
    const doc = (await test.app.inject({ method: 'GET', url: '/v2/openapi.json' })).json();
    const helpers = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith('/v2/test-helpers/'))
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
          .map(
            (m) =>
              [
                m.toUpperCase(),
                path.replace(
                  /\{(\w+)\}/g,
                  (_, p) => `${p[0].toUpperCase()}${p.slice(1, -9)}_0123456789abcdefghjkmnpqrs`,
                ),
              ] as const,
          ),
      );
    assert.ok(helpers.length >= 8, `found ${helpers.length} helpers`);
    const key = prod.seed.organizations[0].apiKeys.full;
    for (const [method, path] of helpers) {
      const res = await call(prod, method as never, path, { key, ...(method === 'POST' ? { body: {} } : {}) });
      assert.equal(res.statusCode, 404, `${method} ${path}: ${res.body}`);
      assert.equal(res.data.code, 'not_found', `${method} ${path}`);
    }
    const prodDoc = (await prod.app.inject({ method: 'GET', url: '/v2/openapi.json' })).json();
    assert.deepEqual(
      Object.keys(prodDoc.paths).filter((p) => p.startsWith('/v2/test-helpers/')),
      [],
      'nor in the production OpenAPI document',
    );
  });
});

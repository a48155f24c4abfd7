import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { README, configTable, renderConfigDocs } from '../../scripts/config-docs.ts';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../src/config.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    assert.equal(c.env, 'test');
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.publicBaseUrl, 'http://127.0.0.1:3000');
    assert.equal(c.databaseUrl, null);
    assert.deepEqual(c.rateLimits.default, { name: 'default', quota: 3000, windowSeconds: 60 });
    assert.deepEqual(c.rateLimits.uploads, { name: 'uploads', quota: 5000, windowSeconds: 86400 });
    assert.deepEqual(c.rateLimits.downloads, { name: 'downloads', quota: 100000, windowSeconds: 86400 });
    assert.equal(c.allowPrivateTargets, true);
    assert.equal(loadConfig({ APP_ENV: 'production' }).allowPrivateTargets, false);
    assert.ok(Object.isFrozen(c));
  });

  it('names the bad variable', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'abc' }, /^PORT must be a whole number/],
      [{ PORT: '70000' }, /^PORT must be between/],
      [{ APP_ENV: 'staging' }, /^APP_ENV must be/],
      [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL must use postgres/],
      [{ REDIS_URL: 'not a url' }, /^REDIS_URL is not a valid URL/],
      [{ RUN_WORKER: 'maybe' }, /^RUN_WORKER must be true or false/],
      [{ RATE_LIMITS: 'default=10' }, /^RATE_LIMITS: "default=10"/],
      [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of/],
      [{ PIXEL_THREADS: 'realtime' }, /^PIXEL_THREADS must be "idle" or "nice"/],
    ];
    for (const [env, message] of cases)
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && message.test((e as Error).message),
      );
  });

  it('takes the Shopify app as a pair of key and secret, with checked scopes', () => {
    assert.equal(loadConfig({}).shopify, null);
    const c = loadConfig({ SHOPIFY_API_KEY: 'key', SHOPIFY_API_SECRET: 'secret' });
    assert.deepEqual(c.shopify?.scopes.includes('write_assigned_fulfillment_orders'), true);
    assert.deepEqual(
      loadConfig({ SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: 's', SHOPIFY_SCOPES: 'read_orders, write_products' })
        .shopify?.scopes,
      ['read_orders', 'write_products'],
    );
    assert.throws(
      () => loadConfig({ SHOPIFY_API_KEY: 'key' }),
      /SHOPIFY_API_KEY and SHOPIFY_API_SECRET must be set together/,
    );
    assert.throws(
      () => loadConfig({ SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: 's', SHOPIFY_SCOPES: 'everything' }),
      /SHOPIFY_SCOPES: comma-separated/,
    );
  });

  it('documents every variable in the README', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const v of CONFIG_VARIABLES) assert.ok(readme.includes(`\`${v.name}\``), `${v.name} is in the README table`);
  });

  it("and the README's table agree word for word (run `npm run docs:config` after changing the list)", () => {
    const readme = readFileSync(README, 'utf8');
    assert.equal(readme, renderConfigDocs(readme));
    const rows = configTable().split('\n').slice(2);
    assert.equal(rows.length, CONFIG_VARIABLES.length, 'one row per variable');
    const drifted = readme.replace('Address the HTTP server binds to.', 'Where it listens.');
    assert.notEqual(drifted, readme);
    assert.equal(renderConfigDocs(drifted), readme, 'a description edited in the README alone is a difference');
  });
});

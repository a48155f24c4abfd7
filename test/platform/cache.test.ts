import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { ReadCache } from '../../src/platform/cache.ts';
import { prepared } from '../../src/platform/db/index.ts';
import { statementName } from '../../src/platform/db/prepared.ts';
import { PostgresDb } from '../../src/platform/db/postgres.ts';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { createServices, type Services } from '../../src/services.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { testDatabaseUrl } from '../support/db.ts';

async function eventually(check: () => Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('ReadCache', () => {
  it('loads once, and only what is missing', async () => {
    const cache = new ReadCache<string>({ maxEntries: 10, maxAgeMs: 60_000 });
    const asked: string[][] = [];
    const load = async (keys: string[]) => {
      asked.push(keys);
      return new Map(keys.filter((k) => k !== 'absent').map((k) => [k, k.toUpperCase()]));
    };
    assert.deepEqual(
      [...(await cache.getMany(['a', 'b'], load))],
      [
        ['a', 'A'],
        ['b', 'B'],
      ],
    );
    assert.deepEqual(
      [...(await cache.getMany(['a', 'c', 'absent'], load))],
      [
        ['a', 'A'],
        ['c', 'C'],
      ],
    );
    assert.deepEqual(asked, [
      ['a', 'b'],
      ['c', 'absent'],
    ]);
    // Absent keys are not remembered: they may be created later.
    await cache.getMany(['absent'], load);
    assert.deepEqual(asked.at(-1), ['absent']);
  });

  it('does not keep a value whose load started before a clear', async () => {
    const cache = new ReadCache<string>({ maxEntries: 10, maxAgeMs: 60_000 });
    let release!: () => void;
    const slow = cache.getOne('k', () => new Promise((r) => (release = () => r('old'))));
    cache.clear();
    release();
    assert.equal(await slow, 'old', 'the caller still gets what it read');
    assert.equal(cache.get('k'), undefined, 'but it is not served to the next one');
    assert.equal(await cache.getOne('k', async () => 'new'), 'new');
    assert.equal(cache.get('k'), 'new');
  });

  it('sends one load for readers that miss the same keys at once, and none started before a clear', async () => {
    const cache = new ReadCache<string>({ maxEntries: 10, maxAgeMs: 60_000 });
    const asked: string[][] = [];
    const gates: Array<() => void> = [];
    const load = (keys: string[]) => {
      asked.push(keys);
      return new Promise<Map<string, string>>((r) =>
        gates.push(() => r(new Map(keys.filter((k) => k !== 'absent').map((k) => [k, k.toUpperCase()])))),
      );
    };
    const burst = Promise.all([
      cache.getMany(['a', 'absent'], load),
      cache.getMany(['a', 'absent'], load),
      cache.getMany(['a', 'b'], load),
      cache.getOne('b', async () => 'other'),
    ]);
    for (const open of gates.splice(0)) open();
    const [first, second, third, one] = await burst;
    assert.deepEqual(asked, [['a', 'absent'], ['b']], 'each missing key is loaded once');
    assert.deepEqual([...first], [['a', 'A']]);
    assert.deepEqual([...second], [['a', 'A']]);
    assert.deepEqual([...third].sort(), [
      ['a', 'A'],
      ['b', 'B'],
    ]);
    assert.equal(one, 'B');

    // A reader after a change does not wait for a load that started before it.
    const old = cache.getOne('c', () => new Promise((r) => gates.push(() => r('old'))));
    cache.clear();
    assert.equal(await cache.getOne('c', async () => 'new'), 'new');
    for (const open of gates.splice(0)) open();
    assert.equal(await old, 'old');
    assert.equal(cache.get('c'), 'new');

    // A failed load fails every reader that waited for it, and the next miss loads again.
    const failing = () => Promise.reject(new Error('database down'));
    const failed = await Promise.allSettled([cache.getOne('d', failing), cache.getOne('d', async () => 'unused')]);
    assert.deepEqual(
      failed.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    assert.equal(await cache.getOne('d', async () => 'back'), 'back');
  });

  it('drops the oldest entry when full, and entries past their age', async () => {
    const cache = new ReadCache<number>({ maxEntries: 2, maxAgeMs: 60_000 });
    for (const [k, v] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      await cache.getOne(k, async () => v);
    assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], [undefined, 2, 3]);
    const young = new ReadCache<number>({ maxEntries: 2, maxAgeMs: 0 });
    await young.getOne('a', async () => 1);
    assert.equal(young.get('a'), undefined);
  });
});

it('holds a key a local write is changing, and forgets holds of rolled-back writes never read again', async () => {
  const cache = new ReadCache<number>({ maxEntries: 10, maxAgeMs: 60_000 });
  cache.hold('a');
  assert.equal(await cache.getOne('a', async () => 1), 1);
  assert.equal(cache.get('a'), undefined, 'a held key is read from the database, not stored');
  cache.delete('a');
  await cache.getOne('a', async () => 2);
  assert.equal(cache.get('a'), 2, 'stored again once its change was announced');
  // Thousands of holds that expire unannounced (rolled back) and are never read again.
  for (let i = 0; i < 5000; i++) cache.hold(`gone-${i}`, 0);
  cache.hold('b');
  const held = (cache as unknown as { held: Map<string, number> }).held;
  assert.ok(held.size <= 1024, `${held.size} holds kept`);
  assert.ok(held.has('b'));
});

describe('caches of catalog and stores on one node', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => t?.close());

  it('serves a product change of the operator at once', async () => {
    const product = (await call(t, 'GET', '/v2/products?limit=1')).data.products[0];
    assert.equal((await call(t, 'GET', `/v2/products/${product.reference}`)).data.product.name, product.name);
    await t.s.catalog.changeProduct(product.reference, { name: 'Renamed by the operator' });
    assert.equal(
      (await call(t, 'GET', `/v2/products/${product.reference}`)).data.product.name,
      'Renamed by the operator',
    );
  });

  it('serves a store change at once to order creation', async () => {
    const store = (await call(t, 'GET', '/v2/stores')).data.stores.find(
      (s: { integration: string }) => s.integration === 'api',
    );
    const orgId = t.seed.organizations[0].reference;
    assert.equal((await t.s.organization.cachedStore(orgId, store.reference))?.integration, 'api');
    await t.s.organization.updateStore(orgId, store.reference, { integration: 'shopify' });
    assert.equal((await t.s.organization.cachedStore(orgId, store.reference))?.integration, 'shopify');
    await t.s.organization.updateStore(orgId, store.reference, { integration: 'api' });
  });
});

describe('caches across nodes on PostgreSQL', {
  skip: testDatabaseUrl ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  let t: TestApp;
  let other: Services;
  let otherDb: PostgresDb;
  before(async () => {
    t = await createTestApp();
    otherDb = new PostgresDb((t.db as PostgresDb).pool.options.connectionString!);
    other = createServices({
      config: t.s.config,
      db: otherDb,
      clock: t.clock,
      log: pino({ level: 'silent' }) as never,
      rateLimits: new MemoryRateLimitStore(),
      secretKey: 'test-secret-key',
      blobs: t.s.blobs,
    });
  });
  after(async () => {
    await otherDb?.close();
    await t?.close();
  });

  const productName = async (ref: string) => (await call(t, 'GET', `/v2/products/${ref}`)).data.product.name as string;

  it('drops a product another node changed', async () => {
    const ref = (await call(t, 'GET', '/v2/products?limit=1')).data.products[0].reference;
    await productName(ref);
    await other.catalog.changeProduct(ref, { name: 'Changed on another node' });
    await eventually(
      async () => (await productName(ref)) === 'Changed on another node',
      'the other node’s change is served',
    );
  });

  it('forgets everything when its listening connection drops, and listens again', async () => {
    const ref = (await call(t, 'GET', '/v2/products?limit=1')).data.products[0].reference;
    const before = await productName(ref);
    // A change nobody announced (as if its notification were lost) is served once the connection drops.
    await t.db.query('UPDATE products SET name = $2 WHERE id = $1', [ref, 'Changed silently']);
    assert.equal(await productName(ref), before, 'still cached');
    const listening =
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()";
    const pids = (await t.db.query<{ pid: number }>(listening)).map((r) => r.pid);
    assert.equal(pids.length, 2, 'one listening connection per node');
    await t.db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
    await eventually(async () => (await productName(ref)) === 'Changed silently', 'the cache is dropped');
    await eventually(async () => (await t.db.query(listening)).length === 2, 'both nodes listen again');
    await other.catalog.changeProduct(ref, { name: 'After the reconnect' });
    await eventually(async () => (await productName(ref)) === 'After the reconnect', 'notifications arrive again');
  });

  it('drops a store another node changed', async () => {
    const orgId = t.seed.organizations[0].reference;
    const store = (await call(t, 'GET', '/v2/stores')).data.stores[0];
    await t.s.organization.cachedStore(orgId, store.reference);
    await other.organization.updateStore(orgId, store.reference, { name: 'Renamed elsewhere' });
    await eventually(
      async () => (await t.s.organization.cachedStore(orgId, store.reference))?.name === 'Renamed elsewhere',
      'the store change is seen',
    );
  });

  it('plans every run of a prepared statement with its own values, however many runs before', async () => {
    // 2,000 rows of one status and one of another: a generic plan (what PostgreSQL may switch a
    // named statement to after five runs) would keep the parameter and the plan of the common value.
    await t.db.query('CREATE TABLE plan_probe (id int PRIMARY KEY, status text NOT NULL)');
    await t.db.query(
      "INSERT INTO plan_probe SELECT g, CASE WHEN g = 1 THEN 'rare' ELSE 'common' END FROM generate_series(1, 2000) g",
    );
    await t.db.query('CREATE INDEX plan_probe_status ON plan_probe (status)');
    await t.db.query('ANALYZE plan_probe');
    const sql = prepared('SELECT count(*) AS n FROM plan_probe WHERE status = $1');
    await t.db.tx(async (tx) => {
      for (let i = 0; i < 8; i++) assert.equal((await tx.query(sql, ['common']))[0].n, 1999);
      const plan = await tx.query(`EXPLAIN (COSTS OFF) EXECUTE "${statementName(sql)}"('rare')`);
      const text = plan.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(text, /'rare'/, `planned with the value:\n${text}`);
      assert.doesNotMatch(text, /\$1/);
    });
  });

  it("keeps the database URL's own startup options beside its plan setting", async () => {
    const url = new URL((t.db as PostgresDb).pool.options.connectionString!);
    url.searchParams.set('options', '-c work_mem=5MB');
    const db = new PostgresDb(url.toString());
    try {
      const [work] = await db.query<{ work_mem: string }>('SHOW work_mem');
      const [plans] = await db.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode');
      assert.deepEqual([work.work_mem, plans.plan_cache_mode], ['5MB', 'force_custom_plan']);
    } finally {
      await db.close();
    }
  });

  it('runs a prepared statement again after a migration changed its table', async () => {
    await t.db.query('CREATE TABLE prepared_probe (id int PRIMARY KEY)');
    await t.db.query('INSERT INTO prepared_probe VALUES (1)');
    const sql = prepared('SELECT * FROM prepared_probe WHERE id = $1');
    // Every pooled connection prepares it (the pool has 10).
    await Promise.all(Array.from({ length: 12 }, () => t.db.query(sql, [1])));
    await t.db.query('ALTER TABLE prepared_probe ADD COLUMN note text');
    assert.deepEqual(await t.db.query(sql, [1]), [{ id: 1, note: null }]);
    const sqlInTx = prepared('SELECT * FROM prepared_probe WHERE id = $1 AND id > 0');
    await Promise.all(Array.from({ length: 12 }, () => t.db.tx((tx) => tx.query(sqlInTx, [1]))));
    await t.db.query('ALTER TABLE prepared_probe ADD COLUMN other text');
    assert.deepEqual(await t.db.tx((tx) => tx.query(sqlInTx, [1])), [{ id: 1, note: null, other: null }]);
  });
});

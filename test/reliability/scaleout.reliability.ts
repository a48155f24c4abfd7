import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { SeedResult } from '../../src/seed/demo.ts';
import { type Child, freshDatabase, http, receiver, sleep, startProcess, until } from './process.ts';
import { ADDRESS, pngBytes, recordFigures } from './support.ts';

const DB_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const QUOTA = 40;
const SENT = 100;
const OPERATOR = 'reliability-scale-operator';

/**
 * Two API processes (no worker) and two worker processes on one PostgreSQL database and one Redis,
 * like N API nodes and M workers behind a load balancer.
 */
describe('scale-out: two API processes and two workers on PostgreSQL and Redis', {
  timeout: 1_800_000,
  skip: !DB_URL || !REDIS_URL ? 'needs TEST_DATABASE_URL and REDIS_URL' : false,
}, () => {
  const children: Child[] = [];
  let dir: string;
  let db: { url: string; drop: () => Promise<void> };
  let api: Child[];
  let seed: SeedResult;
  const rx = { current: null as Awaited<ReturnType<typeof receiver>> | null };

  before(async () => {
    db = await freshDatabase(DB_URL!, `pod_rel_scale_${process.pid}`);
    dir = mkdtempSync(join(tmpdir(), 'pod-reliability-scale-'));
    const env = {
      DATA_DIR: dir,
      DATABASE_URL: db.url,
      REDIS_URL: REDIS_URL!,
      SECRET_KEY: 'reliability-shared-secret-key',
      OPERATOR_TOKEN: OPERATOR,
      RUN_WORKER: 'false',
      KEY_CACHE_TTL_SECONDS: '2',
      RATE_LIMITS: `default=${QUOTA}/3600,uploads=1000/3600,downloads=1000/3600`,
    };
    // The first node loads the demo data; the second shares DATA_DIR (blobs, demo keys) and reuses it.
    api = [await startProcess('src/main.ts', env)];
    children.push(api[0]);
    api.push(await startProcess('src/main.ts', env));
    children.push(api[1]);
    for (let i = 0; i < 2; i++) {
      children.push(
        await startProcess(
          'src/worker.ts',
          { ...env, LOG_LEVEL: 'info', RUN_WORKER: 'true' },
          { ready: /worker started()/ },
        ),
      );
    }
    seed = JSON.parse(readFileSync(join(dir, 'demo-keys.json'), 'utf8'));
  });

  after(async () => {
    for (const c of children) await c.kill('SIGTERM');
    await rx.current?.close();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`holds one rate limit across both API processes (${SENT} requests, quota ${QUOTA})`, async () => {
    // The second organization has made no request yet: its bucket is full.
    const key = seed.organizations[1].apiKeys.full;
    const results = await Promise.all(
      Array.from({ length: SENT }, (_, i) => http(api[i % 2].base, 'GET', '/v2/organization', { key })),
    );
    const limited = results.filter((r) => r.status === 429).length;
    const ok = results.filter((r) => r.status === 200).length;
    assert.equal(ok + limited, SENT, `statuses: ${results.map((r) => r.status).join(',')}`);
    assert.ok(Math.abs(limited - (SENT - QUOTA)) <= 1, `429s: ${limited}, expected ${SENT - QUOTA} within one token`);
    for (const r of results.filter((x) => x.status === 429)) assert.equal(r.body.code, 'rate_limited');
    recordFigures('scaleout', {
      notes: [
        `rate limit across 2 API processes: ${SENT} requests, quota ${QUOTA}: ${ok} allowed, ${limited} refused with 429 (exact: ${SENT - QUOTA})`,
      ],
    });
  });

  it('runs each job once, one process at a time: every webhook delivered once, every render made once', async () => {
    rx.current = await receiver();
    const o = seed.organizations[0];
    const key = o.apiKeys.full;
    const ep = await http(api[0].base, 'POST', '/v2/webhook-endpoints', {
      key,
      body: { webhookEndpoint: { url: `${rx.current.url}/hook`, eventTypes: ['order.created'] } },
    });
    assert.equal(ep.status, 200, ep.text);
    const up = await http(api[1].base, 'POST', '/v2/images', { key, raw: await pngBytes(80) });
    assert.equal(up.status, 200, up.text);
    const product = o.products!.find((p) => p.printable && p.status === 'launched')!.reference;
    const store = o.stores.find((s) => s.integration === 'api')!.reference;
    const orders: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await http(api[i % 2].base, 'POST', '/v2/orders', {
        key,
        body: {
          order: {
            storeReference: store,
            shippingKind: 'dropship',
            customIdentifier: `scale-${i}`,
            dropshipAddress: ADDRESS,
            orderlines: [{ productReference: product, imageReference: up.body.image.reference, quantity: 1 }],
          },
        },
      });
      assert.equal(res.status, 200, res.text);
      orders.push(res.body.order.reference);
    }
    const composition = Object.values(seed.rendering?.compositions ?? {})[0];
    const renders: string[] = [];
    for (let i = 0; i < 3; i++) {
      const img = await http(api[i % 2].base, 'POST', '/v2/images', { key, raw: await pngBytes(90 + i) });
      const r = await http(api[i % 2].base, 'POST', '/v2/renders', {
        key,
        body: { render: { compositionReference: composition, imageReference: img.body.image.reference } },
      });
      assert.equal(r.status, 200, r.text);
      renders.push(r.body.render.reference);
    }
    const r = rx.current;
    await until(
      '12 webhook deliveries',
      async () => new Set(r.hits.map((h) => h.headers['webhook-id'])).size >= orders.length,
      180_000,
    );
    // The renders' completion is read from the database: polling GET /v2/renders would draw on the
    // organization's 40-an-hour `default` bucket that the rate-limit check sets, and on a slow
    // machine the polls would use it up before the renders finish.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await until(
        'renders completed',
        async () => {
          const rows = await client.query(
            `SELECT count(*)::int AS n FROM renders WHERE id = ANY($1) AND status = 'completed'`,
            [renders],
          );
          return rows.rows[0].n === renders.length;
        },
        240_000,
        1000,
      );
      // One read each through the API (three requests of the quota): the API shows them completed.
      for (const ref of renders) {
        const got = await http(api[0].base, 'GET', `/v2/renders/${ref}`, { key });
        assert.equal(got.status, 200, got.text);
        assert.equal(got.body.render.status, 'completed', got.text);
      }
      await sleep(1500);
      const ids = r.hits.map((h) => String(h.headers['webhook-id']));
      assert.equal(
        ids.length,
        new Set(ids).size,
        `each event delivered once: ${ids.length} attempts for ${new Set(ids).size} events`,
      );
      // The queue's own record: nothing ran twice.
      const twice = await client.query(
        `SELECT kind, id, attempts FROM jobs WHERE status = 'succeeded' AND attempts > 1`,
      );
      assert.deepEqual(twice.rows, [], 'no succeeded job needed a second claim');
      const byWorker = await client.query(
        `SELECT count(DISTINCT locked_by)::int AS n FROM jobs WHERE status = 'running'`,
      );
      assert.ok(byWorker.rows[0].n <= 2);
      const done = await client.query(`SELECT count(*)::int AS n FROM jobs WHERE status = 'succeeded'`);
      recordFigures('scaleout', {
        notes: [
          `jobs across 2 worker processes: ${done.rows[0].n} succeeded, each at the first attempt; ${ids.length} webhook deliveries for ${new Set(ids).size} events, ${renders.length} renders completed once`,
        ],
      });
    } finally {
      await client.end();
    }
  });

  it('stops a revoked key on the revoking node at once and on the other within KEY_CACHE_TTL_SECONDS (2 s)', async () => {
    const org = seed.organizations[0].reference;
    const op = (base: string, method: string, path: string, body?: unknown) =>
      http(base, method, `/operator${path}`, { body, headers: { authorization: `Bearer ${OPERATOR}` } });
    const created = await op(api[0].base, 'POST', `/organizations/${org}/api-keys`, { name: 'scale revoke' });
    assert.equal(created.status, 200, created.text);
    const { secret, reference } = created.body.apiKey;
    assert.equal(
      (await http(api[1].base, 'GET', '/v2/organization', { key: secret })).status,
      200,
      'the other node caches the key',
    );
    assert.equal((await http(api[0].base, 'GET', '/v2/organization', { key: secret })).status, 200);
    const revoked = await op(api[0].base, 'POST', `/organizations/${org}/api-keys/${reference}/revoke`);
    assert.equal(revoked.status, 200, revoked.text);
    const at = Date.now();
    assert.equal(
      (await http(api[0].base, 'GET', '/v2/organization', { key: secret })).status,
      401,
      'the revoking node refuses at once',
    );
    await until(
      'the other node refuses',
      async () => (await http(api[1].base, 'GET', '/v2/organization', { key: secret })).status === 401,
      15_000,
      100,
    );
    const seconds = (Date.now() - at) / 1000;
    assert.ok(
      seconds <= 2 + 3,
      `the other node refused after ${seconds} s (bound 2 s, plus slack for a loaded machine)`,
    );
    recordFigures('scaleout', {
      notes: [
        `revocation: refused at once on the revoking node, after ${seconds.toFixed(2)} s on the other (KEY_CACHE_TTL_SECONDS=2)`,
      ],
    });
  });
});

if (!DB_URL || !REDIS_URL) recordFigures('scaleout', { skipped: ['scale-out: needs TEST_DATABASE_URL and REDIS_URL'] });

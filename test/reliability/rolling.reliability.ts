import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { SeedResult } from '../../src/seed/demo.ts';
import { type Child, freshDatabase, http, receiver, sleep, startProcess, until } from './process.ts';
import { ADDRESS, pngBytes, recordFigures } from './support.ts';

const DB_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const HAPROXY = spawnSync('haproxy', ['-v'], { encoding: 'utf8' }).status === 0;
const SKIP =
  !DB_URL || !REDIS_URL
    ? 'needs TEST_DATABASE_URL and REDIS_URL'
    : !HAPROXY
      ? 'haproxy is not installed (apt-get install haproxy)'
      : false;
const OPERATOR = 'reliability-rolling-operator';
/** Two failed checks 300 ms apart take a node out; the drain outlasts that on a loaded machine. */
const DRAIN_SECONDS = 3;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * The proxy of docs/operations.md: health checks on /readyz every 300 ms (two failures take a node
 * out, two successes bring it back; a slow answer on a busy machine is not a failure), and a request
 * whose connection was refused goes to the other node (nothing of it reached a server, so resending
 * it is safe).
 */
function haproxyConfig(port: number, backends: number[]): string {
  return `global
  maxconn 2000
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout check 2s
  retries 3
  option redispatch
  retry-on conn-failure
frontend api
  bind 127.0.0.1:${port}
  default_backend nodes
backend nodes
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 300 fall 2 rise 2
${backends.map((p, i) => `  server node${i + 1} 127.0.0.1:${p} check`).join('\n')}
`;
}

describe('rolling restart: two API nodes and a worker behind HAProxy, on PostgreSQL and Redis', {
  timeout: 1_800_000,
  skip: SKIP,
}, () => {
  let dir: string;
  let db: { url: string; drop: () => Promise<void> };
  let proxy: ChildProcess | null = null;
  let proxyOutput = '';
  let base: string;
  let env: Record<string, string>;
  const ports: number[] = [];
  const nodes: Child[] = [];
  let worker: Child;
  let seed: SeedResult;
  let rx: Awaited<ReturnType<typeof receiver>>;

  const startNode = (i: number) =>
    startProcess('src/main.ts', { ...env, PORT: String(ports[i]), RUN_WORKER: 'false' }).then((c) => (nodes[i] = c));
  const startWorker = () =>
    startProcess('src/worker.ts', { ...env, LOG_LEVEL: 'info' }, { ready: /worker started()/ }).then(
      (c) => (worker = c),
    );

  before(async () => {
    db = await freshDatabase(DB_URL!, `pod_rel_rolling_${process.pid}`);
    dir = mkdtempSync(join(tmpdir(), 'pod-reliability-rolling-'));
    env = {
      DATA_DIR: dir,
      DATABASE_URL: db.url,
      REDIS_URL: REDIS_URL!,
      SECRET_KEY: 'reliability-rolling-secret-key',
      OPERATOR_TOKEN: OPERATOR,
      SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS),
      RATE_LIMITS: 'default=100000000/60,uploads=100000000/60,downloads=100000000/60',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    };
    ports.push(await freePort(), await freePort());
    await startNode(0); // loads the demo data into the empty database; the second node shares DATA_DIR
    await startNode(1);
    await startWorker();
    seed = JSON.parse(readFileSync(join(dir, 'demo-keys.json'), 'utf8'));
    // Orders reserve stock: the steady load outlasts the demo warehouse, and a refusal for
    // stock is not what this test measures.
    const stock = new pg.Client({ connectionString: db.url });
    await stock.connect();
    await stock.query('UPDATE items SET logical_quantity = 1000000000, physical_quantity = 1000000000');
    await stock.end();
    const port = await freePort();
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig(port, ports));
    proxy = spawn('haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    proxy.stdout!.on('data', (c) => (proxyOutput += c));
    proxy.stderr!.on('data', (c) => (proxyOutput += c));
    base = `http://127.0.0.1:${port}`;
    await until('HAProxy serving', async () => (await http(base, 'GET', '/readyz')).status === 200, 20_000, 200);
    rx = await receiver();
  });

  after(async () => {
    proxy?.kill('SIGTERM');
    await worker?.kill('SIGTERM');
    for (const n of nodes) await n?.kill('SIGTERM');
    await rx?.close();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('restarts each node and the worker under steady load: no failed request, no job lost or run twice', async () => {
    const o = seed.organizations[0];
    const key = o.apiKeys.full;
    const ep = await http(base, 'POST', '/v2/webhook-endpoints', {
      key,
      body: { webhookEndpoint: { url: `${rx.url}/hook`, eventTypes: ['order.created'] } },
    });
    assert.equal(ep.status, 200, ep.text);
    const image = await http(base, 'POST', '/v2/images', { key, raw: await pngBytes(80) });
    assert.equal(image.status, 200, image.text);
    const product = o.products!.find((p) => p.printable && p.status === 'launched')!.reference;
    const store = o.stores.find((s) => s.integration === 'api')!.reference;

    let stop = false;
    let sent = 0;
    const failures: string[] = [];
    const orders: string[] = [];
    const load = async (lane: number) => {
      for (let i = 0; !stop; i++) {
        sent++;
        if (i % 3 === 0) {
          const res = await http(base, 'POST', '/v2/orders', {
            key,
            headers: { 'idempotency-key': `rolling-${lane}-${i}` },
            body: {
              order: {
                storeReference: store,
                shippingKind: 'dropship',
                customIdentifier: `rolling-${lane}-${i}`,
                dropshipAddress: ADDRESS,
                orderlines: [{ productReference: product, imageReference: image.body.image.reference, quantity: 1 }],
              },
            },
          });
          if (res.status === 200) orders.push(res.body.order.reference);
          else failures.push(`POST /v2/orders: ${res.status} ${res.text.slice(0, 200)}`);
        } else {
          const res = await http(base, 'GET', '/v2/organization', { key });
          if (res.status !== 200) failures.push(`GET /v2/organization: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    };
    const lanes = [0, 1, 2, 3].map(load);
    const steps: string[] = [];
    try {
      await sleep(1500);
      for (const i of [0, 1]) {
        const t0 = Date.now();
        await nodes[i].kill('SIGTERM'); // drains for DRAIN_SECONDS, then closes
        await startNode(i);
        // Back in rotation after two good health checks.
        await sleep(1000);
        steps.push(`node ${i + 1} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
      const t0 = Date.now();
      await worker.kill('SIGTERM'); // finishes the jobs it holds, claims no more
      await startWorker();
      steps.push(`worker ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      await sleep(1500);
    } finally {
      stop = true;
      await Promise.all(lanes);
    }

    await until(
      'every order delivered',
      async () => new Set(rx.hits.map((h) => h.headers['webhook-id'])).size >= orders.length,
      120_000,
    );
    await sleep(1500);
    const ids = rx.hits.map((h) => String(h.headers['webhook-id']));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    let twice: unknown[];
    let unfinished: unknown[];
    try {
      twice = (await client.query(`SELECT kind, id, attempts FROM jobs WHERE status = 'succeeded' AND attempts > 1`))
        .rows;
      unfinished = (await client.query(`SELECT kind, id, status FROM jobs WHERE status IN ('running', 'dead')`)).rows;
    } finally {
      await client.end();
    }
    recordFigures('rolling restart', {
      itemsLost: Math.max(0, orders.length - new Set(ids).size),
      rollingRequests: sent,
      rollingFailed: failures.length,
      notes: [
        `rolling restart behind HAProxy: ${sent} requests (${orders.length} orders) while ${steps.join(', ')} restarted: ${failures.length} failed; ${ids.length} webhook deliveries for ${new Set(ids).size} events, ${twice.length} jobs run twice`,
      ],
    });
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failed requests\n${proxyOutput.slice(-2000)}`);
    assert.equal(new Set(ids).size, orders.length, 'every order.created delivered');
    assert.equal(ids.length, new Set(ids).size, 'each event delivered once');
    assert.deepEqual(twice, [], 'no job needed a second claim');
    assert.deepEqual(unfinished, [], 'no job left running or dead');
  });
});

if (SKIP) recordFigures('rolling restart', { skipped: [`rolling restart: ${SKIP}`] });

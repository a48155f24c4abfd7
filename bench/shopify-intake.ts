/**
 * Shopify webhook intake: signed `orders/create` webhooks (Shopify's documented example payload,
 * one new Shopify order each) sent flat out to `POST /integrations/shopify/webhooks` of a server
 * on the embedded database (or PostgreSQL with BENCH_DATABASE_URL), while another organization
 * reads its orders at a steady rate. Reports webhooks answered per second, Shopify orders taken
 * into orders per second (end to end, through the worker), and the other organization's p99 during
 * the intake against the same requests on the idle server measured just before.
 *
 *   npx tsx bench/shopify-intake.ts            (BENCH_SECONDS, default 10; --smoke: 2 s)
 *
 * Targets: 150 orders/s on PGlite, 500 on PostgreSQL; the other organization's p99 within 2x idle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/runtime.ts';
import { seedDemoOnce } from '../src/seed/demo-keys.ts';
import { freshDatabase } from './setup.ts';
import { cpuMs, startProcess } from './processes.ts';
import { SHOPIFY_BENCH_SECRET, shopifyOrderWebhook } from './shopify-webhook.ts';

const SMOKE = process.argv.includes('--smoke');
const SECONDS = SMOKE ? 2 : Number(process.env.BENCH_SECONDS ?? 10);

export interface ShopifyIntakeRow {
  scenario: string;
  webhooksPerSecond: number;
  ordersPerSecond: number;
  /** The target: orders per second this database must sustain. */
  targetOrdersPerSecond: number;
  intakeP50: number;
  intakeP99: number;
  errors: number;
  non2xx: number;
  otherIdleP99: number;
  otherBusyP99: number;
  /**
   * The server's CPU time (every thread) from the first webhook until the last is an order, per
   * order: the intake and the worker, and the other organization's reads meanwhile. It moves far
   * less than the rates on a shared machine, where a process waits for a core.
   */
  serverCpuMsPerOrder: number;
  note: string;
}

export async function shopifyIntake(): Promise<ShopifyIntakeRow> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pod-bench-shopify-'));
  const database = await freshDatabase();
  const env = {
    DATA_DIR: dataDir,
    SECRET_KEY: 'bench-secret-key',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  };
  // The demo data, with a warehouse that does not run out: an order refused for stock measures a refusal.
  const s = await startRuntime(loadConfig(env), { log: pino({ level: 'silent' }) as never });
  const seeded = (await seedDemoOnce(s, dataDir, { rotateKeys: true })).result!;
  const demo = seeded.organizations[0];
  const products = await s.catalog.productSummaries(demo.reference);
  const sku = products.find((p) => !p.printable && p.status === 'launched')!.reference;
  await s.db.query('UPDATE items SET logical_quantity = 1000000000, physical_quantity = 1000000000');
  const shopStore = demo.stores.find((x) => x.integration === 'shopify')!.reference;
  const other = seeded.organizations[1];
  const [otherOrder] = await s.db.query<{ id: string }>(
    'SELECT id FROM orders WHERE organization_id = $1 ORDER BY seq DESC LIMIT 1',
    [other.reference],
  );
  await s.rateLimits.close();
  await s.db.close();

  const server = await startProcess(
    'src/main.ts',
    { ...env, LOG_LEVEL: 'warn', SHOPIFY_API_KEY: 'bench-key', SHOPIFY_API_SECRET: SHOPIFY_BENCH_SECRET },
    /Base URL: +http/,
  );
  const base = `http://127.0.0.1:${server.port}`;
  try {
    const otherPath = otherOrder ? `/v2/orders/${otherOrder.id}` : '/v2/orders?limit=10';
    const otherLoad = (seconds: number) =>
      autocannon({
        url: `${base}${otherPath}`,
        connections: 4,
        overallRate: 100,
        duration: seconds,
        headers: { 'x-service-secret-key': other.apiKeys.full },
      });
    const idle = await otherLoad(Math.max(2, Math.floor(SECONDS / 2)));

    const lastNumber = async () => {
      const res = await fetch(`${base}/v2/orders?storeReference=${shopStore}&limit=1`, {
        headers: { 'x-service-secret-key': demo.apiKeys.full },
      });
      const code =
        ((await res.json()) as { orders: Array<{ legacyOrderCode: string }> }).orders[0]?.legacyOrderCode ?? '-0';
      return Number(code.split('-').pop());
    };
    const before = await lastNumber();
    let n = 0;
    const started = Date.now();
    const cpuBefore = cpuMs(server.child.pid!);
    const intake = autocannon({
      url: `${base}/integrations/shopify/webhooks`,
      method: 'POST',
      connections: 16,
      duration: SECONDS,
      requests: [
        {
          setupRequest: (req: any) => {
            n += 1;
            return { ...req, ...shopifyOrderWebhook(n, sku, 'bench') };
          },
        },
      ],
    });
    const busy = await otherLoad(SECONDS);
    const answered = await intake;
    // The worker goes on after the last answer: orders/s counts until the last webhook is an order.
    const sent = answered.requests.total;
    const deadline = Date.now() + 120_000;
    let made = (await lastNumber()) - before;
    while (made < answered['2xx'] && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      made = (await lastNumber()) - before;
    }
    const seconds = (Date.now() - started) / 1000;
    const cpu = cpuMs(server.child.pid!) - cpuBefore;
    // Order numbers are taken before an order is written (a refused one leaves its number unused):
    // the count from numbers is an upper bound, the webhooks answered the lower one.
    made = Math.min(made, answered['2xx']);
    return {
      scenario: `Shopify webhook intake (${database.url ? 'PostgreSQL' : 'PGlite'})`,
      webhooksPerSecond: Math.round(answered['2xx'] / SECONDS),
      ordersPerSecond: Math.round(made / seconds),
      targetOrdersPerSecond: database.url ? 500 : 150,
      intakeP50: answered.latency.p50,
      intakeP99: answered.latency.p99,
      errors: answered.errors,
      non2xx: answered.non2xx,
      otherIdleP99: idle.latency.p99,
      otherBusyP99: busy.latency.p99,
      serverCpuMsPerOrder: Math.round((cpu / Math.max(1, made)) * 100) / 100,
      note: `${sent} webhooks sent, ${answered['2xx']} answered 2xx, ${made} orders made in ${seconds.toFixed(1)} s; other organization's p99 ${(busy.latency.p99 / Math.max(1, idle.latency.p99)).toFixed(2)}x idle (target 2x); target ${database.url ? 500 : 150} orders/s`,
    };
  } finally {
    await server.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const row = await shopifyIntake();
  console.table([row]);
}

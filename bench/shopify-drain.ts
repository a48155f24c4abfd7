/**
 * The worker's side of the Shopify intake alone, in one process on PGlite: N signed `orders/create`
 * webhooks (Shopify's documented example, one new Shopify order each) stored through the intake
 * without a worker running, then the worker started and timed until every one is processed. Reports
 * orders per second of wall time and the process's CPU per order (PGlite's thread included), which
 * a loaded machine moves far less than wall time.
 *
 *   npx tsx bench/shopify-drain.ts            (N, default 600)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/runtime.ts';
import { seedDemoOnce } from '../src/seed/demo-keys.ts';
import { SHOPIFY_BENCH_SECRET, shopifyOrderWebhook } from './shopify-webhook.ts';

const N = Number(process.env.N ?? 600);
const dataDir = mkdtempSync(join(tmpdir(), 'pod-bench-drain-'));
const env = { DATA_DIR: dataDir, SECRET_KEY: 'k', SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: SHOPIFY_BENCH_SECRET };
const s = await startRuntime(loadConfig(env), { log: pino({ level: 'silent' }) as never });
const demo = (await seedDemoOnce(s, dataDir, { rotateKeys: true })).result!.organizations[0];
const sku = (await s.catalog.productSummaries(demo.reference)).find(
  (p) => !p.printable && p.status === 'launched',
)!.reference;
await s.db.query('UPDATE items SET logical_quantity = 1000000000, physical_quantity = 1000000000');
for (let n = 1; n <= N; n++) {
  const { body, headers } = shopifyOrderWebhook(n, sku, 'drain');
  await s.storefronts.receiveWebhook(body, headers);
}
const waiting = async () =>
  (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM storefront_inbox WHERE processed_at IS NULL'))[0].n;
const cpu = process.cpuUsage();
const started = Date.now();
s.worker.start();
while ((await waiting()) > 0) await new Promise((r) => setTimeout(r, 100));
const seconds = (Date.now() - started) / 1000;
const used = process.cpuUsage(cpu);
console.table([
  {
    orders: N,
    seconds: Number(seconds.toFixed(1)),
    ordersPerSecond: Math.round(N / seconds),
    cpuMsPerOrder: Number(((used.user + used.system) / 1000 / N).toFixed(2)),
  },
]);
await s.worker.stop();
await s.rateLimits.close();
await s.db.close();
rmSync(dataDir, { recursive: true, force: true });

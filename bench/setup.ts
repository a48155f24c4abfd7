import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import sharp from 'sharp';
import { loadConfig } from '../src/config.ts';
import { startRuntime } from '../src/runtime.ts';
import { ordersRepo } from '../src/modules/orders/repo.ts';
import { seedDemoOnce } from '../src/seed/demo-keys.ts';

export interface BenchFixture {
  dataDir: string;
  databaseUrl: string | null;
  baselineDataDir: string;
  secretKey: string;
  demoKey: string;
  small: { key: string; orgId: string; orders: number; middleSeq: number };
  big: { key: string; orgId: string; orders: number; middleSeq: number };
  tenants: string[];
  sampleOrder: string;
  /** EXPLAIN ANALYZE of the order list's own query: first and deep page, small and big organization. */
  explain: Record<string, string>;
  cleanup(): Promise<void>;
}

/** Creates a database of its own for the run: a PGlite folder, or a fresh PostgreSQL database. */
export async function freshDatabase(): Promise<{ url: string | null; drop: () => Promise<void> }> {
  const admin = process.env.BENCH_DATABASE_URL;
  if (!admin) return { url: null, drop: async () => {} };
  const name = `pod_bench_${Date.now().toString(36)}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await d.end();
    },
  };
}

/**
 * Seeds what the scenarios need before the server starts (PGlite allows one process): the demo
 * data, a small and a big organization whose orders are written with set-based SQL (a million rows
 * would take hours through the API), and the tenants of the many-organizations scenario.
 */
export async function prepare(opts: {
  bigOrders: number;
  smallOrders: number;
  tenants: number;
}): Promise<BenchFixture> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pod-bench-'));
  const database = await freshDatabase();
  const secretKey = 'bench-secret-key';
  const config = loadConfig({
    DATA_DIR: dataDir,
    SECRET_KEY: secretKey,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  });
  const s = await startRuntime(config, { log: pino({ level: 'silent' }) as never });
  // Fresh keys, written to DATA_DIR/demo-keys.json, which the server started later shows again.
  const seeded = (await seedDemoOnce(s, dataDir, { rotateKeys: true })).result!;
  const demo = seeded.organizations[0];
  const products = await s.catalog.productSummaries(demo.reference);
  const plain = products.find((p) => !p.printable && p.status === 'launched');
  if (!plain) throw new Error('the demo catalog has no launched non-print product');

  const makeOrg = async (name: string, orders: number) => {
    const org = await s.organization.createOrganization({ name, rendertokenLimit: 1_000_000 });
    const address = {
      lastname: 'Bench',
      streetname: 'Damrak',
      housenumber: '1',
      zipcode: '1012 LG',
      city: 'Amsterdam',
      countryCode: 'NL',
      email: 'bench@example.com',
    };
    const account = await s.organization.createAccount(org.reference, {
      name,
      legalEntity: { name },
      billingAddress: address,
    });
    const code = `B${Math.random().toString(36).slice(2, 9).toUpperCase()}`;
    const store = await s.organization.createStore(org.reference, {
      name,
      code,
      integration: 'api',
      accountReference: account.reference,
      combinedAddress: address,
    });
    const key = (await s.organization.createApiKey(org.reference, { name: 'bench' })).apiKey.secret;
    if (orders > 0) await bulkOrders(s.db, org.reference, store.reference, plain.reference, orders);
    // The seq in the middle of the organization's orders: a deep page's cursor position.
    const [{ seq }] = await s.db.query<{ seq: number }>(
      'SELECT (min(seq) + (max(seq) - min(seq)) / 2)::int AS seq FROM orders WHERE organization_id = $1',
      [org.reference],
    );
    return { orgId: org.reference, key, storeId: store.reference, middleSeq: seq ?? 0 };
  };
  // The organizations driven at thousands of requests per second get their limits raised; the
  // tenants of the many-organizations scenario keep the defaults (50 req/s sustained).
  const unlimited = { quota: 1_000_000_000, windowSeconds: 60 };
  const raise = (orgId: string) =>
    s.organization.setRateLimits(orgId, { default: unlimited, uploads: unlimited, downloads: unlimited });
  const small = await makeOrg('Bench Small', opts.smallOrders);
  const big = await makeOrg('Bench Big', opts.bigOrders);
  for (const orgId of [demo.reference, small.orgId, big.orgId]) await raise(orgId);
  const tenants: string[] = [];
  for (let i = 0; i < opts.tenants; i++) tenants.push((await makeOrg(`Bench Tenant ${i + 1}`, 0)).key);
  const [sample] = await s.db.query<{ id: string }>(
    'SELECT id FROM orders WHERE organization_id = $1 ORDER BY seq DESC LIMIT 1',
    [small.orgId],
  );
  // Orders reserve stock: the write scenarios create far more orders than the demo
  // warehouse holds, and an order refused for stock would measure a refusal, not a write.
  await s.db.query('UPDATE items SET logical_quantity = 1000000000, physical_quantity = 1000000000');
  // Settle what the bulk seed left behind before anything is measured: a million inserted rows make
  // autovacuum's insert threshold fire, and their WAL makes the next checkpoint write for minutes.
  // Left to run during the first scenarios, they slow them (on PostgreSQL the POST run measured ~65 %
  // of the same run on a settled database). A long-running database has done both long ago.
  await s.db.query('VACUUM (ANALYZE)');
  await s.db.query('CHECKPOINT');
  // The list's own SQL (ordersRepo.orders), run through an executor that prefixes EXPLAIN.
  const explain: Record<string, string> = {};
  const explained = [
    [`first page, ${opts.smallOrders.toLocaleString('en')} orders`, small, null],
    [`deep page, ${opts.smallOrders.toLocaleString('en')} orders`, small, small.middleSeq],
    [`first page, ${opts.bigOrders.toLocaleString('en')} orders`, big, null],
    [`deep page, ${opts.bigOrders.toLocaleString('en')} orders`, big, big.middleSeq],
  ] as const;
  // The big organization's plans only when its orders were seeded (the order list's scenarios run).
  for (const [label, o, after] of explained.filter(([, o]) => o !== big || opts.bigOrders > 0)) {
    const ex = { query: (sql: string, p?: unknown[]) => s.db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, p) };
    await ordersRepo.orders(ex as never, o.orgId, { after, limit: 50 }, {});
    const rows = (await ordersRepo.orders(ex as never, o.orgId, { after, limit: 50 }, {})) as unknown as Array<{
      'QUERY PLAN': string;
    }>;
    explain[label] = rows.map((r) => r['QUERY PLAN']).join('\n');
  }
  await s.rateLimits.close();
  await s.db.close();

  const baselineDataDir = join(dataDir, 'baseline');
  if (!database.url) cpSync(join(dataDir, 'pglite'), join(baselineDataDir, 'pglite'), { recursive: true });
  return {
    dataDir,
    databaseUrl: database.url,
    baselineDataDir,
    secretKey,
    demoKey: demo.apiKeys.full,
    small: { key: small.key, orgId: small.orgId, orders: opts.smallOrders, middleSeq: small.middleSeq },
    big: { key: big.key, orgId: big.orgId, orders: opts.bigOrders, middleSeq: big.middleSeq },
    tenants,
    sampleOrder: sample.id,
    explain,
    cleanup: database.drop,
  };
}

/** Orders with one line each, written in batches so PGlite's memory stays small. */
async function bulkOrders(
  db: { query: (sql: string, p?: unknown[]) => Promise<unknown[]> },
  orgId: string,
  storeId: string,
  productId: string,
  count: number,
) {
  const prefix = orgId.slice(-6);
  const addressId = `Address_${prefix}${'0'.repeat(20)}`;
  await db.query(`INSERT INTO addresses (id, organization_id, fields, created_at) VALUES ($1, $2, $3, now())`, [
    addressId,
    orgId,
    JSON.stringify({
      lastname: 'Bench',
      streetname: 'Damrak',
      housenumber: '1',
      zipcode: '1012 LG',
      city: 'Amsterdam',
      countryCode: 'NL',
      email: 'bench@example.com',
    }),
  ]);
  const batch = 100_000;
  for (let from = 1; from <= count; from += batch) {
    const to = Math.min(count, from + batch - 1);
    await db.query(
      `INSERT INTO orders (id, organization_id, store_id, order_number, shipping_kind, dropship_address_id, minimal_shipping_level,
         shipping_level, status, status_modified_at, shipping_cents, created_at)
       SELECT 'Order_' || $1 || lpad(g::text, 20, '0'), $2, $3, g, 'dropship', $4, 'basic', 'basic', 'pending',
         now() - (($6::int - g) || ' seconds')::interval, 495, now() - (($6::int - g) || ' seconds')::interval
       FROM generate_series($5::int, $6::int) g`,
      [prefix, orgId, storeId, addressId, from, to],
    );
    await db.query(
      `INSERT INTO orderlines (order_id, line_index, product_id, quantity, unit_price_cents, unit_weight_grams)
       SELECT 'Order_' || $1 || lpad(g::text, 20, '0'), 1, $2, 1, 799, 20 FROM generate_series($3::int, $4::int) g`,
      [prefix, productId, from, to],
    );
  }
}

/** A PNG of about `bytes` size whose content is unique to `seed` (noise does not compress). */
export async function noisePng(width: number, height: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let x = seed * 2654435761 || 1;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = x & 0xff;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/**
 * A large PNG that is cheap to make but distinct per `seed` (so the upload's deduplication does not
 * short-cut it): a seeded pattern that compresses, so the file is small while decoding still has to
 * inflate and resize every pixel.
 */
export async function patternPng(width: number, height: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  const row = Buffer.alloc(width * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < row.length; x++) row[x] = (x * seed + y * 7 + ((x ^ y) & 31)) & 0xff;
    row.copy(raw, y * row.length);
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

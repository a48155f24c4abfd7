import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { Db } from '../../src/platform/db/index.ts';
import { MemoryRateLimitStore, type RateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { type CoreDeps, createServices, type Services } from '../../src/services.ts';
import { issueDemoKeys, type SeedResult, seedDemo } from '../../src/seed/demo.ts';
import { cloneTestDb, templateDigest, testDatabaseUrl } from './db.ts';
import { type BlobStore, LocalBlobStore } from '../../src/platform/storage.ts';

export const OPERATOR_TOKEN = 'test-operator-token';

export interface TestApp {
  app: FastifyInstance;
  s: Services;
  db: Db;
  clock: ManualClock;
  seed: SeedResult;
  /** The first demo organization's full key, and friends. */
  key: string;
  readOnlyKey: string;
  otherKey: string;
  close(): Promise<void>;
}

// A stream of its own: the default destination (stdout through sonic-boom) is flushed and fsynced at exit.
const silent = pino({ level: 'silent' }, { write() {} });

/**
 * Blobs written by the template's seed (product media, render templates) must be readable by every
 * clone, so all test apps share one blob folder per template; every key holds a random reference or
 * a content hash, so test files never collide in it.
 */
const blobDir = () => join(tmpdir(), `pod-api-test-blobs-${templateDigest()}`);
const sharedBlobs = () => new LocalBlobStore(blobDir());

function servicesOn(
  db: Db,
  config: Readonly<Config>,
  clock: ManualClock,
  rateLimits: RateLimitStore,
  blobs: BlobStore = sharedBlobs(),
  shopifyFetch?: CoreDeps['shopifyFetch'],
  log: CoreDeps['log'] = silent as never,
): Services {
  return createServices({
    config,
    db,
    clock,
    log,
    rateLimits,
    secretKey: 'test-secret-key',
    blobs,
    shopifyFetch,
  });
}

export interface TestAppOptions {
  env?: Record<string, string>;
  rateLimits?: RateLimitStore;
  clock?: ManualClock;
  blobs?: BlobStore;
  /** Where calls to Shopify go (a ShopifyStandIn's fetch). */
  shopifyFetch?: CoreDeps['shopifyFetch'];
  /** The services' logger (default: silent). */
  log?: CoreDeps['log'];
}

/**
 * The template's demo keys are test keys, which a production app refuses: a production app gets its
 * own demo keys, issued in its clone (the template's are revoked there).
 */
async function demoKeysOf(s: Services, config: Readonly<Config>, seeded: SeedResult): Promise<SeedResult> {
  if (config.env === 'test') return seeded;
  const organizations = [];
  for (const o of seeded.organizations) organizations.push({ ...o, apiKeys: await issueDemoKeys(s, o.reference) });
  return { ...seeded, organizations };
}

/** A complete app on its own cloned database; `env` overrides configuration variables. */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pod-api-test-'));
  const config = loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, KEY_CACHE_TTL_SECONDS: '10', ...opts.env });
  const clock = opts.clock ?? new ManualClock(new Date());
  const rateLimits = opts.rateLimits ?? new MemoryRateLimitStore();
  // The seed's blobs and the template belong together: without the marker both are made anew.
  const marker = join(blobDir(), `seeded-${testDatabaseUrl ? 'postgres' : 'pglite'}`);
  const rebuild = () => !existsSync(marker);
  const { db, drop, seeded } = await cloneTestDb<SeedResult>(async (template) => {
    // The demo data straight from the seed: production apps refuse `s.seed()`, their tests still need it.
    // The template is shared by every test of the run, whatever its environment: it is seeded as the
    // test environment (production refuses the demo's published passwords). Its result, demo keys
    // included, is kept with the template: every clone holds the same keys, so an app only clones.
    // Its time is the building app's, never later than the wall clock: every other app's clock, set
    // at its start, is later than the demo data, whichever test's app makes the template.
    const templateConfig = loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, KEY_CACHE_TTL_SECONDS: '10' });
    const result = await seedDemo(
      servicesOn(
        template,
        templateConfig,
        new ManualClock(new Date(Math.min(+clock.now(), Date.now()))),
        new MemoryRateLimitStore(),
      ),
    );
    mkdirSync(blobDir(), { recursive: true });
    writeFileSync(marker, 'ok');
    return result;
  }, rebuild);
  // `blobs` replaces the shared folder for the app only; the template's seed blobs stay local.
  const s = servicesOn(db, config, clock, rateLimits, opts.blobs, opts.shopifyFetch, opts.log);
  const seed = await demoKeysOf(s, config, seeded);
  // Each route's schemas compiled by its first request: a file reaches a few of them.
  const app = await buildApp(s, { operatorToken: OPERATOR_TOKEN, schemas: 'on-first-use' });
  await app.ready();
  return {
    app,
    s,
    db,
    clock,
    seed,
    key: seed.organizations[0].apiKeys.full,
    readOnlyKey: seed.organizations[0].apiKeys.readOnly,
    otherKey: seed.organizations[1].apiKeys.full,
    async close() {
      await app.close();
      await s.worker.stop();
      await rateLimits.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A port nobody listens on at this moment, for an app that must know its address before it listens. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * A test app listening on 127.0.0.1, for clients that need a socket (podctl, a browser); `base` is
 * its address. `publicBaseUrl`: PUBLIC_BASE_URL is that address, for the links, redirects and
 * tracking URLs the app writes.
 */
export async function servedApp(
  opts: TestAppOptions & { publicBaseUrl?: boolean } = {},
): Promise<{ t: TestApp; base: string }> {
  const { publicBaseUrl, ...appOpts } = opts;
  const wanted = publicBaseUrl ? await freePort() : 0;
  const env = publicBaseUrl ? { ...appOpts.env, PUBLIC_BASE_URL: `http://127.0.0.1:${wanted}` } : appOpts.env;
  const t = await createTestApp({ ...appOpts, env });
  try {
    await t.app.listen({ host: '127.0.0.1', port: wanted });
  } catch (err) {
    await t.close();
    throw err;
  }
  return { t, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A partner request: JSON body when given, the key header unless `key: null`. */
export async function call(
  t: TestApp,
  method: Method,
  url: string,
  opts: { key?: string | null; body?: unknown; headers?: Record<string, string>; payload?: string | Buffer } = {},
): Promise<LightMyRequestResponse & { data: any }> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? t.key : opts.key;
  if (key !== null) headers['x-service-secret-key'] = key;
  let payload = opts.payload;
  if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await t.app.inject({ method, url, headers, payload });
  let data: any = null;
  try {
    data = res.body ? JSON.parse(res.body) : null;
  } catch {
    data = res.body;
  }
  return Object.assign(res, { data });
}

/** An operator request with the test operator token. */
export function operator(t: TestApp, method: Method, url: string, body?: unknown) {
  return call(t, method, `/operator${url}`, {
    key: null,
    body,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
  });
}

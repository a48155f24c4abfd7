import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { type TestApp, call } from '../support/app.ts';

export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'reliability');
export const REF = /^([A-Z][A-Za-z]*)_[0-9a-hjkmnp-tv-z]{26}$/;
export const REF_ANYWHERE = /\b([A-Z][A-Za-z]*)_[0-9a-hjkmnp-tv-z]{26}\b/g;

/** Figures a reliability file contributes to the summary `npm run test:reliability` prints. */
export interface Figures {
  requestsFuzzed?: number;
  fiveXX?: number;
  undocumented?: number;
  isolationCases?: number;
  faultsInjected?: number;
  itemsLost?: number;
  secretsScanned?: number;
  secretsLeaked?: number;
  ssrfRefused?: number;
  /** Peak resident memory of a server process, MB (the summary prints the highest). */
  memoryPeakMb?: number;
  /** Resident memory of a server at rest after the long mixed soak, MB. */
  memoryAtRestMb?: number;
  /** Peak resident memory of a test process that hosts its server in-process (fuzz, fairness, ...). */
  testProcessPeakMb?: number;
  /**
   * Another organization's latency under one attack over its latency idle, by attack shape
   * (render backlog, slow deliveries, fast-failing churn, trickling webhooks).
   */
  fairness?: Record<string, number>;
  /** Requests sent through the proxy during the rolling restart, and how many failed. */
  rollingRequests?: number;
  rollingFailed?: number;
  /** Password checks that 150 concurrent wrong passwords for one e-mail got (limit 5). */
  signInChecks?: number;
  skipped?: string[];
  notes?: string[];
}

/** One JSON line per call; scripts/reliability-summary.ts adds them up. */
export function recordFigures(file: string, figures: Figures): void {
  mkdirSync(ARTIFACTS, { recursive: true });
  appendFileSync(
    join(ARTIFACTS, 'figures.jsonl'),
    `${JSON.stringify({ file, at: new Date().toISOString(), ...figures })}\n`,
  );
}

// Files whose server runs inside the test process (createTestApp) report that process's peak too:
// it is the server's memory plus the test's own, an upper bound of the server's.
// Files that start their servers as processes (process.ts) report those instead.
export const runState = { childServers: false };
process.once('exit', () => {
  if (runState.childServers) return;
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb)
      recordFigures(basename(process.argv[1] ?? 'test process'), { testProcessPeakMb: Math.round(Number(kb) / 1024) });
  } catch {
    // not Linux: no figure
  }
});

/** A small, deterministic PRNG (mulberry32): the same seed gives the same run. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
export type Rng = ReturnType<typeof prng>;

export interface Operation {
  id: string;
  method: string;
  path: string;
  params: Array<{ in: string; name: string; required: boolean; schema: any }>;
  body: { contentType: string; schema: any; required: boolean } | null;
  statuses: Set<string>;
  /** JSON schemas of the documented 2xx bodies, by status. */
  success: Record<string, any>;
  write: boolean;
  /** `x-read-only-allowed`: a write a read-only key may make (checking a key, a quote). */
  readOnlyAllowed: boolean;
}

export async function openapi(t: TestApp): Promise<{ doc: any; operations: Operation[] }> {
  const res = await call(t, 'GET', '/v2/openapi.json', { key: null });
  assert.equal(res.statusCode, 200);
  const doc = res.data;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      const contentType = Object.keys(content)[0];
      const success: Record<string, any> = {};
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const schema = r?.content?.['application/json']?.schema;
        if (status.startsWith('2') && schema) success[status] = schema;
      }
      operations.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p: any) => ({
          in: p.in,
          name: p.name,
          required: !!p.required,
          schema: p.schema ?? {},
        })),
        body: contentType
          ? { contentType, schema: content[contentType].schema ?? {}, required: !!op.requestBody.required }
          : null,
        statuses: new Set(Object.keys(op.responses)),
        success,
        write: method !== 'get',
        readOnlyAllowed: op['x-read-only-allowed'] === true,
      });
    }
  }
  return { doc, operations };
}

/** Every reference in a JSON value, by resource prefix (lowercase). */
export function collectRefs(value: unknown, into: Map<string, Set<string>> = new Map()): Map<string, Set<string>> {
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      const m = REF.exec(v);
      if (m) {
        const k = m[1].toLowerCase();
        if (!into.has(k)) into.set(k, new Set());
        into.get(k)!.add(v);
      }
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return into;
}

/** `webhookEndpointReference` -> the pool of `Webhookendpoint_…`, `endpointReference` too. */
export function poolFor(refs: Map<string, Set<string>>, name: string): string[] {
  const base = name.replace(/References?$/, '').toLowerCase();
  if (!base) return [];
  const exact = refs.get(base);
  if (exact) return [...exact];
  for (const [k, v] of refs) if (k.endsWith(base) || base.endsWith(k)) return [...v];
  return [];
}

let shade = 0;
export async function pngBytes(size = 48): Promise<Buffer> {
  shade = (shade + 53) % 256;
  return sharp({ create: { width: size, height: size, channels: 3, background: { r: shade, g: 90, b: 170 } } })
    .png()
    .toBuffer();
}

const SHIPPED = '2026-06-01T10:00:00.000Z';
const DAY = 86400_000;
export const ADDRESS = {
  firstname: 'Anna',
  lastname: 'Jansen',
  streetname: 'Prinsengracht',
  housenumber: '263',
  zipcode: '1016 GV',
  city: 'Amsterdam',
  countryCode: 'NL',
  email: 'anna@example.com',
  phonenumber: '+31 20 555 0101',
};

/** Everything one organization owns, created through the API: what the matrix and the fuzzer aim at. */
export interface World {
  org: number;
  key: string;
  refs: Map<string, Set<string>>;
  /** The full key's created webhook secrets (for the secret scans). */
  secrets: string[];
  created: string[];
}

async function ok(res: { statusCode: number; body: string; data: any }, what: string) {
  assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res.data;
}

/**
 * Creates one of each resource kind for demo organization `org`: images, orders (pending and
 * shipped), addresses, a shipment, evidence, a claim, a render, a webhook endpoint, its deliveries
 * and events. Moves the test clock (shipping and claims are time rules).
 */
export async function buildWorld(t: TestApp, org: number, opts: { receiverUrl?: string } = {}): Promise<World> {
  const key = t.seed.organizations[org].apiKeys.full;
  const o = t.seed.organizations[org];
  const refs = new Map<string, Set<string>>();
  const secrets: string[] = [];
  const created: string[] = [];
  const note = (d: unknown) => {
    collectRefs(d, refs);
    return d;
  };
  note(t.seed.organizations[org]);
  t.clock.set(new Date(new Date(SHIPPED).getTime() - DAY));

  const upload = async (path: string) => {
    const res = await call(t, 'POST', path, {
      key,
      payload: await pngBytes(),
      headers: { 'content-type': 'application/octet-stream' },
    });
    return note(await ok(res, `upload ${path}`));
  };
  const image = ((await upload('/v2/images')) as any).image.reference as string;
  const product = o.products?.find((p) => p.printable && p.status === 'launched')?.reference;
  assert.ok(product, `organization ${org} sees a launched print product`);
  const orderBody = (customIdentifier: string) => ({
    order: {
      storeReference: o.stores.find((s) => s.integration === 'api')!.reference,
      shippingKind: 'dropship',
      customIdentifier,
      dropshipAddress: ADDRESS,
      orderlines: [{ productReference: product, imageReference: image, quantity: 2 }],
    },
  });
  const tag = `${org}-${Date.now().toString(36)}`;
  const pending = (
    await ok(await call(t, 'POST', '/v2/orders', { key, body: orderBody(`rel-pending-${tag}`) }), 'order')
  ).order.reference as string;
  created.push(pending);
  note(await ok(await call(t, 'GET', `/v2/orders/${pending}`, { key }), 'get order'));
  const shippedOrder = (
    await ok(await call(t, 'POST', '/v2/orders', { key, body: orderBody(`rel-shipped-${tag}`) }), 'order')
  ).order.reference as string;
  created.push(shippedOrder);
  await ok(
    await call(t, 'POST', `/v2/test-helpers/orders/${shippedOrder}/start-production`, { key }),
    'start production',
  );
  t.clock.set(SHIPPED);
  const shipment = note(
    await ok(
      await call(t, 'POST', '/v2/test-helpers/shipments', {
        key,
        body: { shipment: { orderReferences: [shippedOrder], shippedAt: SHIPPED } },
      }),
      'ship',
    ),
  ) as any;
  note(await ok(await call(t, 'GET', `/v2/shipments/${shipment.shipment.reference}`, { key }), 'get shipment'));
  t.clock.set(new Date(new Date(SHIPPED).getTime() + 10 * DAY));
  const evidence = ((await upload('/v2/evidence')) as any).evidence.reference as string;
  note(
    await ok(
      await call(t, 'POST', '/v2/claim-package-missing', {
        key,
        body: { claim: { shipmentReference: shipment.shipment.reference, evidenceReferences: [evidence] } },
      }),
      'claim',
    ),
  );

  const composition = [
    ...(refs.get('composition') ?? []),
    ...Object.values<string>(t.seed.rendering?.compositions ?? {}),
  ];
  for (const c of composition) {
    const res = await call(t, 'POST', '/v2/renders', {
      key,
      body: { render: { compositionReference: c, imageReference: image } },
    });
    if (res.statusCode === 200) {
      note(res.data);
      break;
    }
  }
  const url = opts.receiverUrl ?? 'http://127.0.0.1:9/reliability-hook';
  const endpoint = await ok(
    await call(t, 'POST', '/v2/webhook-endpoints', {
      key,
      body: { webhookEndpoint: { url, eventTypes: ['order.created', 'order.updated'] } },
    }),
    'endpoint',
  );
  note(endpoint);
  if (endpoint.webhookEndpoint.secret) secrets.push(endpoint.webhookEndpoint.secret);
  await call(t, 'POST', `/v2/webhook-endpoints/${endpoint.webhookEndpoint.reference}/test`, { key });
  await ok(await call(t, 'POST', '/v2/orders', { key, body: orderBody(`rel-evented-${tag}`) }), 'order after endpoint');
  await t.s.worker.drain(20);

  // Every list the document has, so ids only lists reveal (events, deliveries, items…) join the pool.
  for (const path of [
    '/v2/orders',
    '/v2/images',
    '/v2/claims',
    '/v2/events',
    '/v2/webhook-deliveries',
    '/v2/webhook-endpoints',
    '/v2/products',
    '/v2/productgroups',
    '/v2/packagings',
    '/v2/items',
    '/v2/scenes',
    '/v2/perspectives',
    '/v2/claimcategories',
    '/v2/stores',
    '/v2/brands',
    '/v2/accounts',
  ]) {
    const res = await call(t, 'GET', path, { key });
    if (res.statusCode === 200) note(res.data);
  }
  for (const order of refs.get('order') ?? []) note((await call(t, 'GET', `/v2/orders/${order}`, { key })).data);
  return { org, key, refs, secrets, created };
}

/** References `world` holds that `other` does not: what the other organization must never reach. */
export function privateRefs(world: World, other: World): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, set] of world.refs) {
    const theirs = other.refs.get(k) ?? new Set();
    const mine = [...set].filter((r) => !theirs.has(r));
    if (mine.length) out.set(k, mine);
  }
  return out;
}

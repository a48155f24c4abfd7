import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SeedResult } from '../../src/seed/demo.ts';
import { type Child, http, startProcess } from './process.ts';
import { ADDRESS } from './support.ts';

// Servers, data folders and orders of faults.reliability.ts.

const UNLIMITED = 'default=100000000/60,uploads=100000000/60,downloads=100000000/60';
export const OPERATOR = 'reliability-operator-token';

const children = new Set<Child>();
const dirs: string[] = [];

/** Kills the servers still running and removes the data folders (the test file's `after`). */
export async function cleanUp(): Promise<void> {
  for (const c of children) await c.kill();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** A server process of the build, with rate limits off and the operator token. */
export async function server(env: Record<string, string>): Promise<Child> {
  const c = await startProcess('src/main.ts', { RATE_LIMITS: UNLIMITED, OPERATOR_TOKEN: OPERATOR, ...env });
  children.add(c);
  void c.exited.then(() => children.delete(c));
  return c;
}

/** A data folder of its own, removed by `cleanUp`. */
export function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'pod-reliability-'));
  dirs.push(d);
  return d;
}

/** What the server seeded into `dir`: organizations, keys, references. */
export const seedOf = (dir: string): SeedResult => JSON.parse(readFileSync(join(dir, 'demo-keys.json'), 'utf8'));

/** An order of two lines of `image` in the first organization's API store. */
export function orderBody(seed: SeedResult, image: string, customIdentifier: string) {
  const o = seed.organizations[0];
  const product = o.products!.find((p) => p.printable && p.status === 'launched')!.reference;
  return {
    order: {
      storeReference: o.stores.find((s) => s.integration === 'api')!.reference,
      shippingKind: 'dropship',
      customIdentifier,
      dropshipAddress: ADDRESS,
      orderlines: [
        { productReference: product, imageReference: image, quantity: 1 },
        { productReference: product, imageReference: image, quantity: 2 },
      ],
    },
  };
}

/** Every order of the organization, through the API's own pagination. */
export async function allOrders(base: string, key: string) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await http(
      base,
      'GET',
      `/v2/orders?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key },
    );
    assert.equal(res.status, 200, res.text);
    out.push(...res.body.orders);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

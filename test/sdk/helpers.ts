import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { Client, type ClientOptions } from '../../packages/sdk/src/index.ts';
import type { RateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { type TestApp, createTestApp } from '../support/app.ts';

export interface SdkServer {
  t: TestApp;
  baseUrl: string;
  client: Client;
  /** A client with other options on the same server (the first organization's key by default). */
  clientWith(opts?: Partial<ClientOptions>): Client;
  /** operationIds the running server's OpenAPI document lists. */
  serverOperations: Set<string>;
  close(): Promise<void>;
}

/** The app on a real socket (127.0.0.1, a free port) with a test database; the SDK talks HTTP to it. */
export async function startSdkServer(
  opts: { env?: Record<string, string>; worker?: boolean; rateLimits?: RateLimitStore } = {},
): Promise<SdkServer> {
  const t = await createTestApp({ env: opts.env, rateLimits: opts.rateLimits });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  if (opts.worker) t.s.worker.start();
  const doc = (await (await fetch(`${baseUrl}/v2/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  const serverOperations = new Set<string>();
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item)) if (op?.operationId) serverOperations.add(op.operationId);
  const clientWith = (o: Partial<ClientOptions> = {}) => new Client({ apiKey: t.key, baseUrl, ...o });
  return { t, baseUrl, client: clientWith(), clientWith, serverOperations, close: () => t.close() };
}

/**
 * Fails the test unless both the server and this SDK build have the operations: a deleted or
 * renamed endpoint must show up as a failure, not as a skip.
 */
export function requireOperations(server: SdkServer, ...ids: string[]): void {
  const missing = ids.filter((id) => !server.serverOperations.has(id) || !Client.hasOperation(id));
  assert.deepEqual(missing, [], `operations missing from the OpenAPI document or the SDK: ${missing.join(', ')}`);
}

let shade = 0;
/** A PNG no other test uploaded (a new colour each time). */
export async function freshPng(size = { width: 64, height: 64 }): Promise<Buffer> {
  shade = (shade + 1) % 4096;
  return sharp({ create: { ...size, channels: 3, background: { r: shade % 256, g: (shade >> 4) % 256, b: 77 } } })
    .png()
    .toBuffer();
}

export { ADDRESS } from '../orders/helpers.ts';

export function seedProduct(t: TestApp, name: string): string {
  const p = t.seed.organizations[0].products?.find((x) => x.name === name);
  if (!p) throw new Error(`seed product ${name}`);
  return p.reference;
}

export function seedStore(t: TestApp, code: string): string {
  const s = t.seed.organizations[0].stores.find((x) => x.code === code);
  if (!s) throw new Error(`seed store ${code}`);
  return s.reference;
}

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { main } from '../../examples/integration.ts';
import { Client } from '../../packages/sdk/src/index.ts';
import { type SdkServer, requireOperations, startSdkServer } from './helpers.ts';

let server: SdkServer;
let dir: string;
before(async () => {
  server = await startSdkServer({ worker: true });
  dir = mkdtempSync(join(tmpdir(), 'pod-example-test-'));
});
after(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('examples/integration.ts runs end to end against a started server', async () => {
  const needed = [
    'validateAuth',
    'listStores',
    'listProducts',
    'uploadImage',
    'quoteShipping',
    'createOrder',
    'getOrder',
    'testStartProduction',
    'testCreateShipment',
    'getShipment',
    'uploadEvidence',
    'listClaimcategories',
    'claimItemIssues',
    'getClaim',
    'listScenes',
    'listPerspectives',
    'lookupComposition',
    'createRender',
    'getRender',
    'downloadRenderMedia',
  ];
  requireOperations(server, ...needed);
  const lines: string[] = [];
  const result = await main({
    baseUrl: server.baseUrl,
    apiKey: server.t.key,
    outDir: dir,
    renderPollIntervalMs: 200,
    log: (l) => lines.push(l),
  });

  assert.deepEqual(result.skipped, []);
  assert.match(result.imageReference, /^Image_/);
  assert.ok(result.quote.length > 0);
  const client = new Client({ apiKey: server.t.key, baseUrl: server.baseUrl });
  const { order } = await client.orders.get(result.orderReference);
  assert.equal(order.status.code, 'shipped');
  assert.equal(order.shipmentReference, result.shipmentReference);
  assert.ok(result.trackingUrl);
  assert.ok(result.claimReference);
  assert.equal((await client.claims.get(result.claimReference)).claim.status, 'pending');
  assert.ok(result.renderReference && result.mockupPath);
  const { render } = await client.renders.get(result.renderReference);
  assert.equal(render.status, 'completed');
  const meta = await sharp(readFileSync(result.mockupPath)).metadata();
  assert.ok(meta.width && meta.height, 'the mockup is an image');
  assert.ok(lines.some((l) => l.startsWith('order ')));
});

test('the example refuses a bad key with the API error', async () => {
  // A 401 is the ApiError subclass for authentication.
  await assert.rejects(main({ baseUrl: server.baseUrl, apiKey: 'sk_test_nope', outDir: dir, log: () => {} }), {
    name: 'AuthenticationError',
    status: 401,
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  ApiError,
  Client,
  Download,
  LegacyCallbackError,
  NotReadyError,
  type UploadProgress,
  WebhookVerificationError,
  parseLegacyCallback,
  verifyWebhook,
} from '../../packages/sdk/src/index.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import {
  ADDRESS,
  type SdkServer,
  freshPng,
  requireOperations,
  seedProduct,
  seedStore,
  startSdkServer,
} from './helpers.ts';

let server: SdkServer;
let dir: string;
before(async () => {
  server = await startSdkServer();
  dir = mkdtempSync(join(tmpdir(), 'pod-sdk-test-'));
});
after(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('uploads', () => {
  test('from a path, a Buffer, an ArrayBuffer, a Blob, a Node stream and a web stream', async () => {
    const png = await freshPng();
    const path = join(dir, 'a.png');
    writeFileSync(path, png);
    const c = server.client.images;
    const fromPath = (await c.upload(path)).image;
    assert.match(fromPath.reference, /^Image_/);
    assert.equal(fromPath.format, 'png');
    // Identical bytes: the same image, whichever way they arrive.
    const copy = Uint8Array.from(png);
    assert.equal((await c.upload(png)).image.reference, fromPath.reference);
    assert.equal((await c.upload(copy.buffer)).image.reference, fromPath.reference);
    assert.equal((await c.upload(new Blob([copy]))).image.reference, fromPath.reference);
    assert.equal(
      (await c.upload(Readable.from([png.subarray(0, 10), png.subarray(10)]))).image.reference,
      fromPath.reference,
    );
    assert.equal(
      (await c.upload(Readable.toWeb(Readable.from([png])) as ReadableStream<Uint8Array>)).image.reference,
      fromPath.reference,
    );
    assert.equal((await c.upload(new URL(`file://${path}`))).image.reference, fromPath.reference);
  });

  test('bytes that are no image: ApiError 400 with a code', async () => {
    const err = await server.client.images.upload(Buffer.from('definitely not a png')).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.ok(err.code.length > 0);
  });

  test('a missing file fails before any request', async () => {
    await assert.rejects(server.client.images.upload(join(dir, 'missing.png')), /ENOENT/);
  });

  test('uploadMany: progress after each file, failures collected, order kept', async () => {
    const sources = [] as Array<string | Buffer>;
    for (let i = 0; i < 4; i++) {
      const p = join(dir, `bulk-${i}.png`);
      writeFileSync(p, await freshPng());
      sources.push(p);
    }
    sources.splice(2, 0, Buffer.from('broken'));
    const progress: UploadProgress<unknown>[] = [];
    const results = await server.client.images.uploadMany(sources, {
      concurrency: 2,
      onProgress: (p) => progress.push(p),
    });
    assert.equal(results.length, 5);
    assert.equal(progress.length, 5);
    assert.deepEqual(
      progress.map((p) => p.done),
      [1, 2, 3, 4, 5],
    );
    assert.ok(progress.every((p) => p.total === 5));
    assert.equal(progress.at(-1)?.failed, 1);
    assert.ok(results[2].error instanceof ApiError);
    assert.equal(results[2].source, '#2');
    for (const i of [0, 1, 3, 4]) {
      assert.equal(results[i].source, sources[i]);
      assert.match(results[i].result?.image.reference ?? '', /^Image_/);
    }
    await assert.rejects(
      server.client.images.uploadMany([Buffer.from('x'), await freshPng()], { stopOnError: true, concurrency: 1 }),
      ApiError,
    );
  });

  test('evidence uploads the same way', async () => {
    requireOperations(server, 'uploadEvidence');
    const res = (await server.client.callById('uploadEvidence', await freshPng())) as {
      evidence: { reference: string };
    };
    assert.match(res.evidence.reference, /^Evidence_/);
  });
});

describe('renders and downloads', () => {
  test('createAndWait polls until completed; media and thumbnail download as streams', async (t) => {
    requireOperations(server, 'createRender', 'getRender', 'downloadRenderMedia', 'downloadRenderThumbnail');
    const composition = server.t.seed.rendering?.compositions['demo-studio-ip15'];
    if (!composition) return t.skip('no demo composition in the seed');
    const image = (await server.client.images.upload(await freshPng({ width: 300, height: 600 }))).image.reference;

    // Nothing renders until the worker runs: a pending render answers 202 + Retry-After.
    const created = await server.client.renders.create({
      render: { compositionReference: composition, imageReference: image },
    });
    const notReady = await server.client.renders
      .downloadMedia(created.render.reference, { wait: false })
      .catch((e: unknown) => e);
    assert.ok(notReady instanceof NotReadyError);
    assert.ok(notReady.retryAfter >= 1);
    // A wait longer than the caller allows is not started: one request, no second after a wait.
    let asked = 0;
    const counting = server.clientWith({
      fetch: async (input, init) => {
        asked++;
        return fetch(input, init);
      },
    });
    await assert.rejects(counting.renders.downloadMedia(created.render.reference, { maxWaitMs: 500 }), NotReadyError);
    assert.equal(asked, 1, 'the 60 s Retry-After was not waited for');

    // The worker renders once the client has seen the render pending: the next polls find it done.
    const polls: number[] = [];
    let drained: Promise<unknown> | null = null;
    const observing: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (String(input).includes('/renders/')) {
        polls.push(Date.now());
        drained ??= server.t.s.worker.drain();
      }
      return res;
    };
    const client = server.clientWith({ fetch: observing, renderPollIntervalMs: 300 });
    const render = await client.renders.createAndWait({
      render: { compositionReference: composition, imageReference: image },
    });
    await drained;
    const pollTimes = [...polls];
    assert.equal(render.reference, created.render.reference, 'same composition and image: the existing render');
    assert.equal(render.status, 'completed');
    assert.ok(pollTimes.length >= 2, 'polled more than once');
    for (let i = 1; i < pollTimes.length; i++)
      assert.ok(pollTimes[i] - pollTimes[i - 1] >= 290, 'polls keep the interval');

    const media = await client.renders.downloadMedia(render.reference);
    assert.ok(media instanceof Download);
    assert.equal(media.status, 200);
    assert.equal(media.contentType, render.media?.mimeType);
    const chunks: Buffer[] = [];
    for await (const chunk of media.toNodeStream()) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    assert.equal(bytes.length, render.media?.size);

    const thumb = await client.renders.downloadThumbnail(render.reference);
    const file = join(dir, `thumb.${render.thumbnail?.extension}`);
    await thumb.saveTo(file);
    assert.equal(readFileSync(file).length, render.thumbnail?.size);

    const web = await client.renders.downloadMedia(render.reference);
    const reader = web.body.getReader();
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
    }
    assert.equal(total, render.media?.size);
  });

  test('a download waits out 202 Retry-After and then streams the file', async () => {
    // The pending phase lasts 60 s on the real server; this small server answers 202 with a
    // one-second Retry-After twice, then the file.
    let n = 0;
    const times: number[] = [];
    const files = http.createServer((_req, res) => {
      times.push(Date.now());
      if (n++ < 2)
        return res
          .writeHead(202, { 'retry-after': '1', 'content-type': 'application/json' })
          .end('{"render":{"reference":"Render_x","status":"pending"}}');
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([1, 2, 3]));
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    try {
      const { port } = files.address() as AddressInfo;
      const client = new Client({ apiKey: 'sk_test_x', baseUrl: `http://127.0.0.1:${port}` });
      const d = await client.renders.downloadMedia('Render_x');
      assert.deepEqual([...(await d.buffer())], [1, 2, 3]);
      assert.equal(times.length, 3);
      assert.ok(times[1] - times[0] >= 1000 && times[2] - times[1] >= 1000, 'waited Retry-After each time');
    } finally {
      files.closeAllConnections();
      await new Promise<void>((r) => files.close(() => r()));
    }
  });

  test('an unknown render is a 404 ApiError, not a download', async () => {
    requireOperations(server, 'downloadRenderMedia');
    const err = await server.client.renders.downloadMedia('Render_0000000000000000000000zzzz').catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 404);
  });
});

describe('webhooks', () => {
  test('verifyWebhook accepts a real delivery and rejects a tampered one or a wrong secret', async () => {
    requireOperations(server, 'createWebhookEndpoint', 'testWebhookEndpoint', 'rotateWebhookEndpointSecret');
    const receiver = await startReceiver();
    try {
      const { webhookEndpoint } = await server.client.webhookEndpoints.create({
        webhookEndpoint: { url: receiver.url, eventTypes: ['order.created'] },
      });
      await server.client.webhookEndpoints.test(webhookEndpoint.reference);
      await server.t.s.worker.drain();
      assert.equal(receiver.received.length, 1);
      const { body, headers } = receiver.received[0];
      const event = verifyWebhook(body, headers, webhookEndpoint.secret);
      assert.equal(event.reference, headers['webhook-id']);
      assert.equal(typeof event.type, 'string');
      assert.throws(
        () => verifyWebhook(body.replace('{', '{"x":1,'), headers, webhookEndpoint.secret),
        WebhookVerificationError,
      );
      const other = `whsec_${Buffer.from('another secret of 32 bytes long!').toString('base64')}`;
      assert.throws(() => verifyWebhook(body, headers, other), WebhookVerificationError);
      assert.throws(
        () =>
          verifyWebhook(
            body,
            { ...headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) },
            webhookEndpoint.secret,
          ),
        WebhookVerificationError,
      );
      // Headers from fetch's Headers, a Buffer body, and a list of secrets (rotation) work too.
      assert.equal(
        verifyWebhook(Buffer.from(body), new Headers(headers), [other, webhookEndpoint.secret]).reference,
        event.reference,
      );

      const rotated = await server.client.webhookEndpoints.rotateSecret(webhookEndpoint.reference);
      const newSecret = (rotated.webhookEndpoint as { secret?: string }).secret;
      if (newSecret) {
        await server.client.webhookEndpoints.test(webhookEndpoint.reference);
        await server.t.s.worker.drain();
        const second = receiver.received[1];
        assert.ok(second);
        assert.ok(verifyWebhook(second.body, second.headers, [webhookEndpoint.secret, newSecret]));
        assert.ok(verifyWebhook(second.body, second.headers, newSecret));
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('legacy callback', () => {
  const order = 'Order_0123456789abcdefghjkmnpqrs';
  test('parses the callback the service really sends when an order ships', async () => {
    requireOperations(server, 'createOrder', 'testStartProduction', 'testCreateShipment');
    const urls: string[] = [];
    const receiver = http.createServer((req, res) => {
      urls.push(req.url ?? '');
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const org = server.t.seed.organizations[0].reference;
    const store = seedStore(server.t, 'DEMO1');
    try {
      const { port } = receiver.address() as AddressInfo;
      await server.t.s.organization.updateStore(org, store, {
        callbackUrl: `http://127.0.0.1:${port}/cb?token=abc&store_code=mine`,
      });
      const image = (await server.client.images.upload(await freshPng())).image.reference;
      const customIdentifier = `cb-${Date.now()}`;
      const { order: created } = await server.client.orders.create({
        order: {
          storeReference: store,
          shippingKind: 'dropship',
          customIdentifier,
          dropshipAddress: ADDRESS,
          orderlines: [
            { productReference: seedProduct(server.t, 'iPhone 15 Clear Case'), imageReference: image, quantity: 1 },
          ],
        },
      });
      await server.client.testHelpers.startProduction(created.reference);
      await server.client.testHelpers.createShipment({ shipment: { orderReferences: [created.reference] } });
      await server.t.s.worker.drain();
      assert.ok(urls.length >= 1, 'the callback arrived');
      const cb = parseLegacyCallback(`http://127.0.0.1${urls[0]}`);
      assert.equal(cb.environment, 'test');
      assert.equal(cb.orderReferenceV2, created.reference);
      assert.equal(cb.storeCode, 'DEMO1', "the service's value wins over the URL's own parameter");
      assert.equal(cb.customReference, customIdentifier);
      const { order: current } = await server.client.orders.get(cb.orderReferenceV2);
      assert.equal(cb.orderReference, current.legacyOrderCode);
      assert.equal(current.status.code, 'shipped');
    } finally {
      await server.t.s.organization.updateStore(org, store, { callbackUrl: '' });
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });

  test('all parameters, from a URL, a query string, URLSearchParams or a parsed object', () => {
    const url = `https://partner.example/cb?token=abc&environment=test&order_reference=DEMO1-1042&order_reference_v2=${order}&store_code=DEMO1&custom_reference=my-42&via_store_code=INTEG`;
    const expected = {
      environment: 'test',
      orderReference: 'DEMO1-1042',
      orderReferenceV2: order,
      storeCode: 'DEMO1',
      customReference: 'my-42',
      viaStoreCode: 'INTEG',
    };
    assert.deepEqual(parseLegacyCallback(url), expected);
    assert.deepEqual(parseLegacyCallback(new URL(url)), expected);
    assert.deepEqual(parseLegacyCallback(new URL(url).search), expected);
    assert.deepEqual(parseLegacyCallback(new URL(url).searchParams), expected);
    assert.deepEqual(parseLegacyCallback(Object.fromEntries(new URL(url).searchParams)), expected);
  });

  test('optional parameters absent are null; deprecated aliases fill in; current names win', () => {
    const base = `environment=prod&order_reference=S-1&order_reference_v2=${order}`;
    assert.deepEqual(parseLegacyCallback(`${base}&store_code=S`), {
      environment: 'prod',
      orderReference: 'S-1',
      orderReferenceV2: order,
      storeCode: 'S',
      customReference: null,
      viaStoreCode: null,
    });
    const aliased = parseLegacyCallback(`${base}&partner_code=S&partner_reference=mine&via_partner_code=V`);
    assert.equal(aliased.storeCode, 'S');
    assert.equal(aliased.customReference, 'mine');
    assert.equal(aliased.viaStoreCode, 'V');
    const both = parseLegacyCallback(`${base}&store_code=NEW&partner_code=OLD&custom_reference=a&partner_reference=b`);
    assert.equal(both.storeCode, 'NEW');
    assert.equal(both.customReference, 'a');
  });

  test('missing or invalid parameters are a LegacyCallbackError naming them', () => {
    assert.throws(() => parseLegacyCallback(`environment=test&order_reference=S-1&store_code=S`), /order_reference_v2/);
    assert.throws(
      () => parseLegacyCallback(`environment=staging&order_reference=S-1&order_reference_v2=${order}&store_code=S`),
      LegacyCallbackError,
    );
    assert.throws(
      () => parseLegacyCallback(`environment=test&order_reference=S-1&order_reference_v2=Claim_x&store_code=S`),
      /order_reference_v2/,
    );
    assert.throws(
      () => parseLegacyCallback(`environment=test&order_reference_v2=${order}&store_code=S`),
      /order_reference\b/,
    );
  });
});

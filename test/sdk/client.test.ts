import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  ApiError,
  Client,
  ConnectionError,
  type Paginator,
  type RateLimitState,
  parseRateLimit,
  parseRateLimitPolicy,
} from '../../packages/sdk/src/index.ts';
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
before(async () => {
  server = await startSdkServer();
});
after(async () => {
  await server?.close();
});

describe('auth and errors', () => {
  test('auth.validate answers the message for a valid key', async () => {
    const res = await server.client.auth.validate();
    assert.equal(typeof res.message, 'string');
  });

  test('a bad key is an ApiError 401 with code, message and request id', async () => {
    const bad = server.clientWith({ apiKey: 'sk_test_not-a-real-key' });
    const err = await bad.auth.validate().then(
      () => assert.fail('expected 401'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 401);
    assert.equal(err.code, 'unauthorized');
    assert.ok(err.message.length > 0);
    assert.ok(err.requestId, 'requestId set');
  });

  test('404 on an unknown reference carries the server request id', async () => {
    requireOperations(server, 'getOrder');
    const err = await server.client.orders.get('Order_0000000000000000000000zzzz').catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 404);
    assert.equal(err.code, 'not_found');
    assert.match(err.requestId ?? '', /.+/);
  });

  test('400 from the schema: an undocumented body field is named in the message', async () => {
    requireOperations(server, 'createOrder');
    const body = {
      order: {
        storeReference: seedStore(server.t, 'DEMO1'),
        shippingKind: 'combined' as const,
        orderlines: [],
        surprise: 1,
      },
    };
    const err = await server.client.orders.create(body as never).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'invalid_request');
    assert.match(err.message, /surprise/);
  });

  test('400 invalid_cursor for a cursor the server never issued', async () => {
    const err = await server.client.images
      .list({ cursor: 'made.up' })
      .firstPage()
      .catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'invalid_cursor');
  });

  test('a path parameter is encoded, never spliced raw into the path', async () => {
    const err = await server.client.images.get('../orders').catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 404);
  });

  test('unreachable server: ConnectionError after the retries', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const client = new Client({ apiKey: server.t.key, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1 });
    await assert.rejects(client.organization.get(), ConnectionError);
  });

  test('no answer within timeoutMs: ConnectionError that says so', async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const { port } = silent.address() as AddressInfo;
      const client = new Client({
        apiKey: server.t.key,
        baseUrl: `http://127.0.0.1:${port}`,
        maxRetries: 0,
        timeoutMs: 200,
      });
      await assert.rejects(
        client.organization.get(),
        (e: unknown) => e instanceof ConnectionError && /timed out after 200 ms/.test(e.message),
      );
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  test('an empty path parameter rejects the promise (no request, no synchronous throw)', async () => {
    const pending = server.client.orders.get('');
    await assert.rejects(pending, TypeError);
    await assert.rejects(
      server.client.claims
        .list()
        .firstPage()
        .then(() => server.client.renders.get('')),
      /renderReference/,
    );
  });

  test('the constructor wants a key; baseUrl may end in /v2', async () => {
    assert.throws(() => new Client({ apiKey: '' }), TypeError);
    const c = new Client({ apiKey: server.t.key, baseUrl: `${server.baseUrl}/v2/` });
    assert.equal(c.baseUrl, server.baseUrl);
    assert.ok((await c.organization.get()).organization);
  });
});

describe('rate-limit headers', () => {
  test('the last X-RateLimit / X-RateLimit-Policy values are exposed', async () => {
    const seen: unknown[] = [];
    const client = server.clientWith({ onRateLimit: (s) => seen.push(s) });
    const initial = client.rateLimit;
    assert.equal(initial, null);
    await client.organization.get();
    const state = client.rateLimit as RateLimitState | null;
    assert.ok(state);
    const policy = state.policies.find((p) => p.name === 'default');
    assert.deepEqual(policy, { name: 'default', quota: 3000, windowSeconds: 60 });
    const limit = state.limits.find((l) => l.name === 'default');
    assert.ok(limit && limit.remaining > 0 && limit.remaining < 3000);
    assert.equal(limit.resetSeconds, 0);
    assert.equal(seen.length, 1);
  });

  test('an upload shows both of its buckets', async () => {
    const client = server.clientWith();
    await client.images.upload(await freshPng());
    const state = client.rateLimit as RateLimitState | null;
    assert.deepEqual(
      state?.policies.map((p) => p.name),
      ['default', 'uploads'],
    );
    assert.deepEqual(state?.policies[1], { name: 'uploads', quota: 5000, windowSeconds: 86400 });
    assert.equal(state?.limits.find((l) => l.name === 'uploads')?.resetSeconds, 0);
  });

  test('header parsing: several entries, quoted names, unknown parameters ignored', () => {
    assert.deepEqual(parseRateLimitPolicy('"default";q=3000;w=60, "downloads";q=100000;w=86400;x=1'), [
      { name: 'default', quota: 3000, windowSeconds: 60 },
      { name: 'downloads', quota: 100000, windowSeconds: 86400 },
    ]);
    assert.deepEqual(parseRateLimit('"default";r=0;t=2, "uploads";r=17;t=0'), [
      { name: 'default', remaining: 0, resetSeconds: 2 },
      { name: 'uploads', remaining: 17, resetSeconds: 0 },
    ]);
    assert.deepEqual(parseRateLimit('garbage'), []);
  });
});

describe('pagination', () => {
  test('for await follows nextCursor across pages and sees every item once', async () => {
    for (let i = 0; i < 5; i++) await server.client.images.upload(await freshPng());
    const all = await server.client.images.list({ limit: 100 }).firstPage();
    assert.ok(all.images.length >= 5);
    assert.equal(all.nextCursor, null);

    const seen: string[] = [];
    for await (const image of server.client.images.list({ limit: 2 })) seen.push(image.reference);
    assert.deepEqual(
      seen,
      all.images.map((i) => i.reference),
    );

    const pages: number[] = [];
    const paginator: Paginator<unknown, { nextCursor: string | null }> = server.client.images.list({ limit: 2 });
    for await (const page of paginator.pages()) pages.push((page as unknown as { images: unknown[] }).images.length);
    assert.equal(
      pages.reduce((a, b) => a + b, 0),
      seen.length,
    );
    assert.ok(pages.length >= 3);
    assert.ok(
      pages.slice(0, -1).every((n) => n === 2),
      `full pages before the last: ${pages}`,
    );
  });

  test('toArray stops at the maximum without fetching every page', async () => {
    const two = await server.client.images.list({ limit: 2 }).toArray(3);
    assert.equal(two.length, 3);
  });

  test('orders iterate newest first', async () => {
    requireOperations(server, 'createOrder', 'listOrders');
    const image = (await server.client.images.upload(await freshPng())).image.reference;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { order } = await server.client.orders.create({
        order: {
          storeReference: seedStore(server.t, 'DEMO1'),
          shippingKind: 'dropship',
          dropshipAddress: ADDRESS,
          orderlines: [
            { productReference: seedProduct(server.t, 'iPhone 15 Clear Case'), imageReference: image, quantity: 1 },
          ],
        },
      });
      made.push(order.reference);
    }
    const listed: string[] = [];
    for await (const order of server.client.orders.list({ limit: 1 })) listed.push(order.reference);
    assert.deepEqual(listed.slice(0, 3), [...made].reverse());
  });
});

describe('idempotency', () => {
  test('every POST carries an Idempotency-Key; the same key replays the same order', async () => {
    requireOperations(server, 'createOrder');
    const image = (await server.client.images.upload(await freshPng())).image.reference;
    const body = {
      order: {
        storeReference: seedStore(server.t, 'DEMO1'),
        shippingKind: 'dropship' as const,
        dropshipAddress: ADDRESS,
        orderlines: [
          { productReference: seedProduct(server.t, 'iPhone 15 Clear Case'), imageReference: image, quantity: 1 },
        ],
      },
    };
    const key = `sdk-test-${Date.now()}`;
    const a = await server.client.orders.create(body, { idempotencyKey: key });
    const b = await server.client.orders.create(body, { idempotencyKey: key });
    assert.equal(a.order.reference, b.order.reference);
    const c = await server.client.orders.create(body);
    assert.notEqual(c.order.reference, a.order.reference);
    const reused = await server.client.orders
      .create({ order: { ...body.order, customIdentifier: 'other' } }, { idempotencyKey: key })
      .catch((e: unknown) => e);
    assert.ok(reused instanceof ApiError);
    assert.equal(reused.code, 'idempotency_key_reused');
  });

  test('a POST whose answer was lost is retried under the same key: one order, not two', async () => {
    requireOperations(server, 'createOrder', 'listOrders');
    // A real proxy in front of the server: it forwards the first POST but answers the client 502,
    // as a load balancer would when the upstream connection drops after the work was done.
    let lost = 0;
    const keys: string[] = [];
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const headers = { ...req.headers } as Record<string, string>;
        delete headers.host;
        delete headers.connection;
        if (req.method === 'POST') keys.push(headers['idempotency-key']);
        const upstream = await fetch(server.baseUrl + req.url, {
          method: req.method,
          headers,
          body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
        });
        const text = await upstream.text();
        if (req.method === 'POST' && lost === 0) {
          lost++;
          res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
          return;
        }
        const out: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
        });
        res.writeHead(upstream.status, out).end(text);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const { port } = proxy.address() as AddressInfo;
      const client = new Client({ apiKey: server.t.key, baseUrl: `http://127.0.0.1:${port}` });
      const before = (await client.orders.list({ limit: 100 }).toArray()).length;
      const image = (await server.client.images.upload(await freshPng())).image.reference;
      const { order } = await client.orders.create({
        order: {
          storeReference: seedStore(server.t, 'DEMO1'),
          shippingKind: 'dropship',
          dropshipAddress: ADDRESS,
          orderlines: [
            { productReference: seedProduct(server.t, 'iPhone 15 Clear Case'), imageReference: image, quantity: 1 },
          ],
        },
      });
      assert.equal(lost, 1);
      assert.equal(keys.length, 2);
      assert.ok(keys[0] && keys[0] === keys[1], 'the retry reuses the key');
      const orders = await client.orders.list({ limit: 100 }).toArray();
      assert.equal(orders.length, before + 1, 'exactly one order was created');
      assert.equal(orders[0].reference, order.reference);
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  test('PATCH is not retried after a 5xx (no idempotency for it), GET is', async () => {
    let calls = 0;
    const flaky = http.createServer((_req, res) => {
      calls++;
      res
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
        .end(JSON.stringify({ code: 'unavailable', message: 'down' }));
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    try {
      const { port } = flaky.address() as AddressInfo;
      const client = new Client({ apiKey: 'sk_test_x', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
      const err = await client.organization.get().catch((e: unknown) => e);
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 503);
      assert.equal(err.code, 'unavailable');
      assert.equal(calls, 3, 'GET: first try and two retries');
      calls = 0;
      if (Client.hasOperation('updateWebhookEndpoint')) {
        await assert.rejects(
          client.call('updateWebhookEndpoint', 'WebhookEndpoint_x', { webhookEndpoint: { description: 'x' } } as never),
          ApiError,
        );
        assert.equal(calls, 1, 'PATCH: no retry');
      }
    } finally {
      flaky.closeAllConnections();
      await new Promise<void>((r) => flaky.close(() => r()));
    }
  });
});

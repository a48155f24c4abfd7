import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { call, createTestApp, operator } from '../support/app.ts';
import { OPERATOR, allOrders, cleanUp, dataDir, orderBody, seedOf, server } from './faults-support.ts';
import { freshDatabase, http, receiver, sleep, tcpProxy, until } from './process.ts';
import { pngBytes, recordFigures } from './support.ts';

const ORDERS = Number(process.env.FAULT_ORDERS ?? 200);

after(cleanUp);

describe('faults: kill -9 and an unreachable database', { timeout: 900_000 }, () => {
  it(`keeps exactly one whole order per identifier when the server is killed during ${ORDERS} concurrent creations`, async () => {
    const dir = dataDir();
    let s = await server({ DATA_DIR: dir });
    const seed = seedOf(dir);
    const key = seed.organizations[0].apiKeys.full;
    const up = await http(s.base, 'POST', '/v2/images', { key, raw: await pngBytes(64) });
    assert.equal(up.status, 200, up.text);
    const image = up.body.image.reference;
    const tag = `kill-${Date.now().toString(36)}`;
    const ids = Array.from({ length: ORDERS }, (_, i) => `${tag}-${i}`);
    const send = (id: string, base: string) =>
      http(base, 'POST', '/v2/orders', {
        key,
        body: orderBody(seed, image, id),
        headers: { 'idempotency-key': `idem-${id}` },
        timeoutMs: 120_000,
      });

    // Fire them all, and kill the server once some have been answered (mid-flight for the rest).
    // The kill goes out from the answer that reaches the count, not from a poll: answers come in
    // bursts, and between two polls 20 ms apart a fast machine once answered all 200.
    const acknowledged = new Map<string, string>();
    let answered = 0;
    let killed: Promise<void> | null = null;
    const inFlight = ids.map(async (id) => {
      const res = await send(id, s.base);
      answered++;
      if (res.status === 200) acknowledged.set(id, res.body.order.reference);
      if (answered >= Math.min(5, ORDERS / 10) && !killed) killed = s.kill('SIGKILL');
      return res.status;
    });
    await until('the first answers', async () => killed !== null, 120_000, 20);
    await killed;
    const before = await Promise.all(inFlight);
    const cutOff = before.filter((st) => st === 0).length;
    assert.ok(cutOff > 0, `the kill cut some requests off (answered before it: ${answered})`);

    s = await server({ DATA_DIR: dir });
    // Clients retry with the same identifier and Idempotency-Key until they get a final answer.
    const final = new Map<string, string>();
    let retries = 0;
    const queue = [...ids];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) {
          const end = Date.now() + 200_000;
          for (;;) {
            const res = await send(id, s.base);
            retries++;
            if (res.status === 200) {
              final.set(id, res.body.order.reference);
              break;
            }
            if (res.status === 409 && res.body?.code === 'custom_identifier_in_use') {
              const found = await http(
                s.base,
                'GET',
                `/v2/utilities/lookup-order-reference-by-custom-identifier?customIdentifier=${encodeURIComponent(id)}`,
                { key },
              );
              assert.equal(found.status, 200, found.text);
              final.set(id, found.body.orderReference);
              break;
            }
            const retryable =
              res.status === 0 ||
              res.status >= 500 ||
              res.status === 429 ||
              (res.status === 409 && res.body?.code === 'idempotency_request_in_progress');
            assert.ok(retryable, `${id}: ${res.status} ${res.text.slice(0, 300)}`);
            assert.ok(Date.now() < end, `${id} still unanswered: ${res.status} ${res.text.slice(0, 200)}`);
            await sleep(2000);
          }
        }
      }),
    );

    const orders = (await allOrders(s.base, key)).filter((o) => String(o.customIdentifier ?? '').startsWith(`${tag}-`));
    const byId = new Map<string, string[]>();
    for (const o of orders) byId.set(o.customIdentifier, [...(byId.get(o.customIdentifier) ?? []), o.reference]);
    let lost = 0;
    for (const id of ids) {
      const refs = byId.get(id) ?? [];
      assert.equal(refs.length, 1, `${id}: ${refs.length} orders`);
      assert.equal(final.get(id), refs[0], `${id}: the retry answer names the stored order`);
      if (acknowledged.has(id) && acknowledged.get(id) !== refs[0]) lost++;
    }
    // No half-written order: each has both of its lines.
    for (const o of orders) {
      const full = await http(s.base, 'GET', `/v2/orders/${o.reference}`, { key });
      assert.equal(full.status, 200, full.text);
      const lines = full.body.order.orderlines;
      assert.equal(lines.length, 2, `${o.reference} has both lines`);
      assert.deepEqual(lines.map((l: any) => l.quantity).sort(), [1, 2]);
    }
    recordFigures('faults', {
      faultsInjected: 1,
      itemsLost: lost,
      notes: [
        `kill -9 during ${ORDERS} order creations: ${acknowledged.size} answered before the kill, ${cutOff} cut off, ${retries} client retries after restart; ${orders.length} orders stored, one per identifier, every one whole`,
      ],
    });
    assert.equal(lost, 0);
    await s.kill('SIGTERM');
  });

  it('completes every render, webhook delivery and callback after the worker is killed mid-job, without duplicates', async () => {
    const dir = dataDir();
    const rx = await receiver({ delayMs: 700 });
    const env = {
      DATA_DIR: dir,
      CALLBACK_TIMEOUT_MS: '5000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
      CALLBACK_RETRY_SECONDS: '1',
    };
    let s = await server(env);
    try {
      const seed = seedOf(dir);
      const o = seed.organizations[0];
      const key = o.apiKeys.full;
      const op = (method: string, path: string, body?: unknown) =>
        http(s.base, method, `/operator${path}`, { body, headers: { authorization: `Bearer ${OPERATOR}` } });
      const store = o.stores.find((x) => x.integration === 'api')!.reference;
      const cb = await op('PATCH', `/organizations/${o.reference}/stores/${store}`, {
        callbackUrl: `${rx.url}/callback`,
      });
      assert.equal(cb.status, 200, cb.text);
      const ep = await http(s.base, 'POST', '/v2/webhook-endpoints', {
        key,
        body: { webhookEndpoint: { url: `${rx.url}/hook`, eventTypes: ['order.created', 'order.updated'] } },
      });
      assert.equal(ep.status, 200, ep.text);

      const images: string[] = [];
      for (let i = 0; i < 6; i++) {
        const up = await http(s.base, 'POST', '/v2/images', { key, raw: await pngBytes(300 + i) });
        assert.equal(up.status, 200, up.text);
        images.push(up.body.image.reference);
      }
      const composition = Object.values(seed.rendering?.compositions ?? {})[0];
      assert.ok(composition, 'a seeded composition');
      const renders: string[] = [];
      for (const image of images) {
        const r = await http(s.base, 'POST', '/v2/renders', {
          key,
          body: { render: { compositionReference: composition, imageReference: image } },
        });
        assert.equal(r.status, 200, r.text);
        renders.push(r.body.render.reference);
      }
      const orders: string[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await http(s.base, 'POST', '/v2/orders', {
          key,
          body: orderBody(seed, images[i % images.length], `worker-${i}-${Date.now().toString(36)}`),
        });
        assert.equal(r.status, 200, r.text);
        orders.push(r.body.order.reference);
        assert.equal(
          (await http(s.base, 'POST', `/v2/test-helpers/orders/${r.body.order.reference}/start-production`, { key }))
            .status,
          204,
        );
        const shipped = await http(s.base, 'POST', '/v2/test-helpers/shipments', {
          key,
          body: { shipment: { orderReferences: [r.body.order.reference] } },
        });
        assert.equal(shipped.status, 200, shipped.text);
      }
      // Kill while deliveries are being answered slowly (jobs in hand).
      await until('deliveries in flight', async () => rx.hits.length >= 1, 120_000, 50);
      await s.kill('SIGKILL');
      const hitsBefore = rx.hits.length;
      rx.setDelay(0);

      s = await server(env);
      const events = await http(s.base, 'GET', '/v2/events?limit=100', { key });
      assert.equal(events.status, 200, events.text);
      const expected = events.body.events
        .filter(
          (e: any) =>
            ['order.created', 'order.updated'].includes(e.type) &&
            orders.some((ref) => JSON.stringify(e).includes(ref)),
        )
        .map((e: any) => e.reference as string);
      assert.ok(expected.length >= orders.length, `events of the orders: ${expected.length}`);
      // A job held by the killed process is taken over when its lease runs out (at most 120 s).
      const missing = () => ({
        events: expected.filter((id: string) => !rx.hits.some((h) => h.headers['webhook-id'] === id)),
        callbacks: orders.filter((ref) => !rx.hits.some((h) => h.url.startsWith('/callback') && h.url.includes(ref))),
      });
      const done = await until(
        'every job done after the restart',
        async () => {
          const m = missing();
          if (m.events.length || m.callbacks.length) return false;
          for (const r of renders) {
            const got = await http(s.base, 'GET', `/v2/renders/${r}`, { key });
            if (got.body?.render?.status !== 'completed') return false;
          }
          return true;
        },
        360_000,
        2000,
      ).catch((err) => {
        const m = missing();
        throw new Error(
          `${(err as Error).message}: events missing ${m.events.length}/${expected.length}, callbacks missing ${m.callbacks.length}/${orders.length}`,
        );
      });
      assert.ok(done);
      // No duplicates: asking again for each render returns the same render; the orders stay 8.
      for (const [i, image] of images.entries()) {
        const again = await http(s.base, 'POST', '/v2/renders', {
          key,
          body: { render: { compositionReference: composition, imageReference: image } },
        });
        assert.equal(again.status, 200, again.text);
        assert.equal(again.body.render.reference, renders[i], 'the same render, not a second one');
        const media = await http(s.base, 'GET', `/v2/renders/${renders[i]}/media`, { key });
        assert.equal(media.status, 200, `render media of ${renders[i]}: ${media.status}`);
      }
      const stored = (await allOrders(s.base, key)).filter((x) => orders.includes(x.reference));
      assert.equal(stored.length, orders.length);
      const webhookHits = rx.hits.filter((h) => h.url.startsWith('/hook')).length;
      recordFigures('faults', {
        faultsInjected: 1,
        itemsLost: 0,
        notes: [
          `worker killed with ${hitsBefore} receiver hits in: after restart ${expected.length} webhook events delivered (${webhookHits} attempts received, at-least-once), ${orders.length} callbacks, ${renders.length} renders completed once`,
        ],
      });
    } finally {
      await s.kill('SIGTERM');
      await rx.close();
    }
  });

  it('delivers webhooks and callbacks once a receiver that was down for a while is back (compressed retry schedule)', async () => {
    const rx = await receiver();
    const t = await createTestApp({
      env: { WEBHOOK_RETRY_SCHEDULE: '5,5,5,5,5,5,5,5,5,5', CALLBACK_RETRY_SECONDS: '5' },
    });
    try {
      const o = t.seed.organizations[0];
      const store = o.stores.find((x) => x.integration === 'api')!.reference;
      const callbackUrl = `${rx.url}/callback`;
      const cb = await operator(t, 'PATCH', `/organizations/${o.reference}/stores/${store}`, { callbackUrl });
      assert.equal(cb.statusCode, 200);
      const ep = await call(t, 'POST', '/v2/webhook-endpoints', {
        body: { webhookEndpoint: { url: `${rx.url}/hook`, eventTypes: ['order.created', 'order.updated'] } },
      });
      assert.equal(ep.statusCode, 200, ep.body);
      rx.setDown(true);
      const up = await call(t, 'POST', '/v2/images', {
        payload: await pngBytes(70),
        headers: { 'content-type': 'application/octet-stream' },
      });
      const orders: string[] = [];
      for (let i = 0; i < 3; i++) {
        const created = await call(t, 'POST', '/v2/orders', {
          body: orderBody(t.seed, up.data.image.reference, `down-${i}`),
        });
        assert.equal(created.statusCode, 200, created.body);
        orders.push(created.data.order.reference);
        assert.equal((await call(t, 'POST', `/v2/test-helpers/orders/${orders[i]}/start-production`)).statusCode, 204);
        const shipment = { shipment: { orderReferences: [orders[i]] } };
        assert.equal((await call(t, 'POST', '/v2/test-helpers/shipments', { body: shipment })).statusCode, 200);
      }
      // Down for six retry rounds: every attempt fails, nothing is given up.
      for (let round = 0; round < 6; round++) {
        await t.s.worker.drain(50);
        t.clock.advance(6000);
      }
      assert.equal(rx.hits.length, 0);
      const failedAttempts = (await call(t, 'GET', '/v2/webhook-deliveries?limit=100')).data.webhookDeliveries.filter(
        (d: any) => d.status !== 'succeeded',
      ).length;
      assert.ok(failedAttempts > 0, 'deliveries are waiting');
      rx.setDown(false);
      for (let round = 0; round < 4; round++) {
        t.clock.advance(6000);
        await t.s.worker.drain(50);
      }
      const events = (await call(t, 'GET', '/v2/events?limit=100')).data.events.filter(
        (e: any) =>
          ['order.created', 'order.updated'].includes(e.type) && orders.some((r) => JSON.stringify(e).includes(r)),
      );
      const delivered = new Set(rx.hits.map((h) => h.headers['webhook-id']));
      const missing = events.filter((e: any) => !delivered.has(e.reference));
      const callbacksMissing = orders.filter(
        (r) => !rx.hits.some((h) => h.url.startsWith('/callback') && h.url.includes(r)),
      );
      recordFigures('faults', {
        faultsInjected: 1,
        itemsLost: missing.length + callbacksMissing.length,
        notes: [
          `receiver down for 6 retry rounds: ${events.length} webhook events and ${orders.length} callbacks delivered once it was back (${missing.length + callbacksMissing.length} missing)`,
        ],
      });
      assert.deepEqual(
        missing.map((e: any) => e.reference),
        [],
      );
      assert.deepEqual(callbacksMissing, []);
      const deliveries = (await call(t, 'GET', '/v2/webhook-deliveries?limit=100')).data.webhookDeliveries;
      assert.ok(
        deliveries.every((d: any) => d.status === 'succeeded'),
        JSON.stringify(deliveries.map((d: any) => d.status)),
      );
    } finally {
      await t.close();
      await rx.close();
    }
  });

  it('answers 503 while PostgreSQL is unreachable for 10 seconds, stays up and recovers by itself', async (t) => {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) {
      recordFigures('faults', { skipped: ['database outage: needs TEST_DATABASE_URL (PostgreSQL)'] });
      t.skip('needs TEST_DATABASE_URL');
      return;
    }
    const db = await freshDatabase(url, `pod_rel_outage_${process.pid}`);
    const target = new URL(db.url);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const dir = dataDir();
    const s = await server({ DATA_DIR: dir, DATABASE_URL: viaProxy.toString(), KEY_CACHE_TTL_SECONDS: '0' });
    try {
      const key = seedOf(dir).organizations[0].apiKeys.full;
      assert.equal((await http(s.base, 'GET', '/v2/orders', { key })).status, 200);
      assert.equal((await http(s.base, 'GET', '/readyz')).status, 200);

      proxy.cut();
      const cutAt = Date.now();
      const during: number[] = [];
      let readyDuring = 0;
      while (Date.now() - cutAt < 10_000) {
        const res = await http(s.base, 'GET', '/v2/orders', { key, timeoutMs: 30_000 });
        during.push(res.status);
        if (res.status !== 0) {
          assert.equal(
            res.status,
            503,
            `during the outage: ${res.status} ${res.text.slice(0, 300)}\n${s.output.join('').slice(-2500)}`,
          );
          assert.equal(typeof res.body.code, 'string');
          assert.equal(typeof res.body.message, 'string');
        }
        const ready = await http(s.base, 'GET', '/readyz', { timeoutMs: 30_000 });
        if (ready.status === 503) readyDuring++;
        await sleep(500);
      }
      assert.ok(during.filter((x) => x === 503).length >= 3, `503s during the outage: ${during.join(',')}`);
      assert.ok(readyDuring >= 1, '/readyz tells the outage');
      assert.equal(s.proc.exitCode, null, 'the process stayed up');

      proxy.restore();
      await until(
        'recovery',
        async () => (await http(s.base, 'GET', '/v2/orders', { key })).status === 200,
        60_000,
        500,
      );
      assert.equal((await http(s.base, 'GET', '/readyz')).status, 200);
      recordFigures('faults', {
        faultsInjected: 1,
        itemsLost: 0,
        notes: [
          `database cut for 10 s: ${during.filter((x) => x === 503).length} requests answered 503, /readyz 503 ${readyDuring} times, recovered without a restart`,
        ],
      });
    } finally {
      await s.kill('SIGTERM');
      await proxy.close();
      await db.drop();
    }
  });
});
